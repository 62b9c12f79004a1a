import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { type Config, ConfigError, loadConfig } from "../../src/config/index.ts";

/** A complete production environment; tests override or delete single variables. */
export const PRODUCTION_ENV: Readonly<Record<string, string>> = {
  DATABASE_URL: "postgres://latchkey:db-password-9f3k@db.internal:5432/latchkey",
  AUTH_SITE_URL: "https://app.example.com",
  AUTH_API_EXTERNAL_URL: "https://auth.example.com",
  AUTH_JWT_SECRET: "0f8e2a7c5b9d4e1f3a6c8b0d2e4f6a8c0b2d4f6e8a0c2e4f",
  AUTH_DB_DRIVER: "postgres",
  AUTH_SMTP_ADMIN_EMAIL: "no-reply@example.com",
  AUTH_SMTP_HOST: "smtp.example.com",
  AUTH_SMTP_PORT: "587",
};

/** A working directory of the current test's own, removed when it ends. */
export function tempCwd(): string {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-config-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

let sharedCwd: string | undefined;

/**
 * The working directory of loads that name none: one for the test process, so the development profile's secret and
 * RSA key (a fifth of a second to make) are made once. A test about those files gives a directory of its own.
 */
function defaultCwd(): string {
  if (sharedCwd === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-config-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    sharedCwd = dir;
  }
  return sharedCwd;
}

/** Loads from `env` alone: no .env file, the shared working directory unless `cwd` is given. */
export function load(env: Record<string, string | undefined>, options: { cwd?: string; dotenv?: string } = {}): Config {
  return loadConfig({ env, cwd: options.cwd ?? defaultCwd(), dotenv: { text: options.dotenv ?? "" } });
}

export function production(overrides: Record<string, string | undefined> = {}): Config {
  return load({ ...PRODUCTION_ENV, ...overrides });
}

/** The problems of a configuration that must fail to load. */
export function problemsOf(env: Record<string, string | undefined>, options: { cwd?: string } = {}): readonly string[] {
  try {
    load(env, options);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected the configuration to be refused");
}
