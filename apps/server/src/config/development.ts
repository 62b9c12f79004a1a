import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type KeyRing, KeyRingError, newKeyRing, parseKeyRing } from "@latchkey/adapters-crypto";
import { ConfigError } from "./config-error.ts";

/** Values that stand in for required settings when no database URL is set. */
export const DEVELOPMENT_SITE_URL = "http://localhost:3000";

export const developmentApiUrl = (port: number) => `http://localhost:${port}`;

/** The development data folder: the embedded database, the generated JWT secret and key; ignored by git. */
export const developmentDataDir = (cwd: string) => join(cwd, ".latchkey");

export const embeddedDatabaseDir = (cwd: string) => join(developmentDataDir(cwd), "pgdata");

/**
 * A 256-bit secret generated on the first start and kept, so tokens and sessions survive restarts. Created
 * exclusively, so two processes starting at once agree on one secret.
 */
export function developmentJwtSecret(cwd: string): string {
  const secret = generatedOnce(cwd, "jwt-secret", () => randomBytes(32).toString("hex"));
  const path = join(developmentDataDir(cwd), "jwt-secret");
  if (secret === "") throw new ConfigError([`${path} is empty; delete it to generate a new development JWT secret`]);
  return secret;
}

/**
 * An RS256 key ring generated on the first start and kept, the specification's default signing, so that the
 * zero-config server signs as a production one configured with JWT_KEYS would. JWT_SECRET's tokens still verify.
 */
export function developmentKeyRing(cwd: string): KeyRing {
  const text = generatedOnce(cwd, "jwt-keys.json", () => newKeyRing("RS256"));
  try {
    return parseKeyRing(text);
  } catch (error) {
    const why = error instanceof KeyRingError ? error.message : describe(error);
    throw new ConfigError([
      `${join(developmentDataDir(cwd), "jwt-keys.json")}: ${why}; delete it to generate a new one`,
    ]);
  }
}

/**
 * The file's content, written on the first start. Created exclusively, so two processes starting at once agree;
 * generated only when missing, as an RSA key takes a while to make.
 */
function generatedOnce(cwd: string, name: string, generate: () => string): string {
  const dir = developmentDataDir(cwd);
  const path = join(dir, name);
  try {
    if (!existsSync(path)) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(path, `${generate()}\n`, { mode: 0o600, flag: "wx" });
    }
  } catch (error) {
    if (!isAlreadyExists(error)) throw new ConfigError([`cannot create ${path}: ${describe(error)}`]);
  }
  try {
    return readFileSync(path, "utf8").trim();
  } catch (error) {
    throw new ConfigError([`cannot read ${path}: ${describe(error)}`]);
  }
}

function isAlreadyExists(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "EEXIST";
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
