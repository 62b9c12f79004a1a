import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "@latchkey/adapters-postgres";
import { missingPostgresServer } from "@latchkey/adapters-postgres/testing";
import { describe, expect, it } from "vitest";
import { PRODUCTION_ENV } from "../config/support.ts";
import { run, serverEnv, tempDir } from "../support/binary.ts";

const PATH = process.env["PATH"] ?? "";

describe("the binary's configuration, for an operator moving from Supabase", () => {
  it("names, in the message of a refused start, the variables it does not read and what they probably meant", async () => {
    const env = {
      PATH,
      DATABASE_URL: "postgres://auth:db-password-2Xy@db.invalid/auth",
      SITE_URL: "https://app.example.com",
      JWT_SECRET: "supabase-jwt-secret-7Hq2mZ9xK4pL8vN3cR6tY1wB5",
      AUTH_SMTP_HOTS: "smtp.example.com",
    };
    const result = run([], env, tempDir());
    expect(await result.exited).toBe(1);
    const { stderr } = result.output();
    expect(stderr).not.toMatch(/^\s+at /m);
    const lines = stderr.trim().split("\n");
    expect(lines[0]).toBe("Invalid configuration (production profile):");
    expect(lines).toEqual(
      expect.arrayContaining([
        "  AUTH_SITE_URL is required",
        "  AUTH_JWT_SECRET is required",
        "  SITE_URL is set: did you mean AUTH_SITE_URL?",
        "  JWT_SECRET is set: did you mean AUTH_JWT_SECRET?",
        "  AUTH_SMTP_HOTS is not a setting; did you mean AUTH_SMTP_HOST?",
      ]),
    );
    for (const value of Object.values(env).slice(1)) expect(stderr).not.toContain(value);
    expect(stderr).not.toContain("db-password-2Xy");
  });

  it("prints the settings in effect with `config`, where each came from, secrets redacted", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, ".env"), "AUTH_JWT_EXP=600\n");
    const env = { PATH, ...PRODUCTION_ENV, AUTH_SMTP_PASS: "smtp-pass-8Kd3" };
    const result = run(["config"], env, cwd);
    expect(await result.exited).toBe(0);
    const { stdout, stderr } = result.output();
    expect(stderr).toBe("");
    expect(stdout).toMatch(/^environment {10}AUTH_SITE_URL=https:\/\/app\.example\.com$/m);
    expect(stdout).toMatch(/^\.env file {12}AUTH_JWT_EXP=600$/m);
    expect(stdout).toMatch(/^default {14}AUTH_JWT_AUD=authenticated$/m);
    expect(stdout).toMatch(/^environment {10}AUTH_JWT_SECRET=\[redacted\]$/m);
    expect(stdout).toMatch(/^environment {10}AUTH_SMTP_PASS=\[redacted\]$/m);
    expect(stdout).toMatch(
      /^environment {10}DATABASE_URL=postgres:\/\/latchkey:\[redacted\]@db\.internal:5432\/latchkey$/m,
    );
    for (const secret of [PRODUCTION_ENV["AUTH_JWT_SECRET"]!, "smtp-pass-8Kd3", "db-password-9f3k"]) {
      expect(stdout).not.toContain(secret);
    }
  });

  it("exits 1 from `config` on a refused configuration, its problems on stderr", async () => {
    const result = run(["config"], { PATH, DATABASE_URL: PRODUCTION_ENV["DATABASE_URL"]! }, tempDir());
    expect(await result.exited).toBe(1);
    const { stdout, stderr } = result.output();
    expect(stdout).toMatch(/^unset {16}AUTH_SITE_URL$/m);
    expect(stderr).toMatch(/^Invalid configuration \(production profile\):\n {2}AUTH_SITE_URL is required$/m);
  });

  it("migrates with DATABASE_URL alone: it means PostgreSQL, with no DB_DRIVER", async (context) => {
    const missing = missingPostgresServer();
    context.skip(missing !== undefined, missing);
    // The namespace keeps the test's tables apart; it is not what the start would ask for.
    const { DATABASE_URL, AUTH_DB_NAMESPACE } = serverEnv();
    const result = run(
      ["migrate"],
      { PATH, DATABASE_URL: DATABASE_URL!, AUTH_DB_NAMESPACE: AUTH_DB_NAMESPACE! },
      tempDir(),
    );
    expect(await result.exited, result.output().stderr).toBe(0);
    expect(result.output().stdout).toContain(
      `"applied":${JSON.stringify(migrations.map((migration) => migration.version))}`,
    );
  });
});
