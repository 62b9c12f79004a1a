import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "./config-error.ts";

/** Values that stand in for required settings when no database URL is set. */
export const DEVELOPMENT_SITE_URL = "http://localhost:3000";

export const developmentApiUrl = (port: number) => `http://localhost:${port}`;

/** The development data folder: the embedded database and the generated JWT secret; ignored by git. */
export const developmentDataDir = (cwd: string) => join(cwd, ".latchkey");

export const embeddedDatabaseDir = (cwd: string) => join(developmentDataDir(cwd), "pgdata");

/**
 * A 256-bit secret generated on the first start and kept, so tokens and sessions survive restarts. Created
 * exclusively, so two processes starting at once agree on one secret.
 */
export function developmentJwtSecret(cwd: string): string {
  const dir = developmentDataDir(cwd);
  const path = join(dir, "jwt-secret");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(path, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if (!isAlreadyExists(error)) throw new ConfigError([`cannot create ${path}: ${describe(error)}`]);
  }
  let secret: string;
  try {
    secret = readFileSync(path, "utf8").trim();
  } catch (error) {
    throw new ConfigError([`cannot read ${path}: ${describe(error)}`]);
  }
  if (secret === "") throw new ConfigError([`${path} is empty; delete it to generate a new development JWT secret`]);
  return secret;
}

function isAlreadyExists(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "EEXIST";
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
