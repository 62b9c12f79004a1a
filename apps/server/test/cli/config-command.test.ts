import { randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newKeyRing } from "@latchkey/adapters-crypto";
import { describe, expect, it } from "vitest";
import { configCommand } from "../../src/cli/config-command.ts";
import { PRODUCTION_ENV, tempCwd } from "../config/support.ts";

/** Every secret a configuration can hold, each with a value that must never be printed. */
const SECRETS: Readonly<Record<string, string>> = {
  AUTH_JWT_SECRET: "jwt-secret-4Hz9c1Kq7Tn2Wx8Lp5Rb3Vm6Yd0Fs",
  AUTH_DB_SECRET: "db-secret-8Qw2Er5Ty7Ui1Op3As6Df9Gh4Jk0Lz",
  AUTH_SMTP_PASS: "smtp-pass-8Kd3",
  AUTH_EXTERNAL_GITHUB_SECRET: "github-secret-3Pn7",
  AUTH_SMS_TWILIO_AUTH_TOKEN: "twilio-token-6Vx2",
  AUTH_SECURITY_CAPTCHA_SECRET: "captcha-secret-1Mq5",
  AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: randomBytes(32).toString("base64url"),
  AUTH_JWT_KEYS: newKeyRing("ES256"),
};

const DATABASE_PASSWORD = "db-password-9f3k";

/** The report's line for a name: `<source, padded> <name>…`. */
const lineOf = (out: string, name: string) =>
  out.split("\n").find((line) => new RegExp(`^[a-z. ]+ ${name}(=| |$)`).test(line));

describe("latchkey config", () => {
  it("prints every setting with where it came from, secrets redacted, and exits 0 for a valid configuration", () => {
    const cwd = tempCwd();
    writeFileSync(join(cwd, ".env"), "AUTH_JWT_EXP=600\nAUTH_SITE_URL=https://from-file.example.com\n");
    const env = {
      ...PRODUCTION_ENV,
      ...SECRETS,
      AUTH_SITE_URL: "https://app.example.com",
      REDIS_URL: "redis://default:redis-pass-6Tb@cache:6379",
      AUTH_EXTERNAL_GITHUB_ENABLED: "true",
      AUTH_EXTERNAL_GITHUB_CLIENT_ID: "github-client",
      AUTH_SMS_PROVIDER: "twilio",
      AUTH_SMS_TWILIO_ACCOUNT_SID: "AC123",
      AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: "MG123",
      AUTH_SECURITY_CAPTCHA_ENABLED: "true",
      AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID: "key-1",
    };
    const { out, error, exitCode } = configCommand({ env, cwd });
    expect(error).toBeUndefined();
    expect(exitCode).toBe(0);
    expect(out!.split("\n")[0]).toBe(
      `# production profile (a database URL is set); read from the environment, then ${join(cwd, ".env")}`,
    );
    // The environment wins over the .env file; what neither sets has its default.
    expect(lineOf(out!, "AUTH_SITE_URL")).toBe("environment          AUTH_SITE_URL=https://app.example.com");
    expect(lineOf(out!, "AUTH_JWT_EXP")).toBe(".env file            AUTH_JWT_EXP=600");
    expect(lineOf(out!, "AUTH_JWT_AUD")).toBe("default              AUTH_JWT_AUD=authenticated");
    expect(lineOf(out!, "AUTH_DB_DRIVER")).toBe("environment          AUTH_DB_DRIVER=postgres");
    expect(lineOf(out!, "AUTH_API_HOST")).toBe("unset                AUTH_API_HOST");
    expect(lineOf(out!, "AUTH_SMS_TEMPLATE")).toBe('default              AUTH_SMS_TEMPLATE="Your code is {{ .Code }}"');
    // Of a URL, only the password is hidden.
    expect(lineOf(out!, "DATABASE_URL")).toBe(
      "environment          DATABASE_URL=postgres://latchkey:[redacted]@db.internal:5432/latchkey",
    );
    expect(lineOf(out!, "REDIS_URL")).toBe("environment          REDIS_URL=redis://default:[redacted]@cache:6379");
    for (const name of Object.keys(SECRETS)) {
      expect(lineOf(out!, name)).toBe(`environment          ${name}=[redacted]`);
    }
    for (const value of [...Object.values(SECRETS), DATABASE_PASSWORD, "redis-pass-6Tb"]) {
      expect(out).not.toContain(value);
    }
    // The provider turned on is shown setting by setting, the others in one line.
    expect(lineOf(out!, "AUTH_EXTERNAL_GITHUB_CLIENT_ID")).toBe(
      "environment          AUTH_EXTERNAL_GITHUB_CLIENT_ID=github-client",
    );
    expect(lineOf(out!, "AUTH_EXTERNAL_GOOGLE_ENABLED")).toBeUndefined();
    expect(out).toMatch(/^default {14}AUTH_EXTERNAL_<PROVIDER>_\*: nothing set, so off: apple, azure, .*, x$/m);
    expect(out).not.toMatch(/AUTH_EXTERNAL_<PROVIDER>_\*.*github/);
  });

  it("says the development profile's stand-ins for what is unset", () => {
    const cwd = tempCwd();
    const { out, exitCode } = configCommand({ env: { AUTH_PORT: "9000" }, cwd, dotenv: { text: "" } });
    expect(exitCode).toBe(0);
    expect(out!.split("\n")[0]).toBe("# development profile (no database URL is set); read from the environment");
    expect(lineOf(out!, "AUTH_SITE_URL")).toBe("development profile  AUTH_SITE_URL=http://localhost:3000");
    expect(lineOf(out!, "AUTH_API_EXTERNAL_URL")).toBe(
      "development profile  AUTH_API_EXTERNAL_URL=http://localhost:9000",
    );
    const data = join(cwd, ".latchkey");
    expect(lineOf(out!, "DATABASE_URL")).toBe(
      `development profile  DATABASE_URL (an embedded PostgreSQL in ${join(data, "pgdata")})`,
    );
    expect(lineOf(out!, "AUTH_JWT_SECRET")).toBe(
      `development profile  AUTH_JWT_SECRET (generated once into ${join(data, "jwt-secret")})`,
    );
    expect(lineOf(out!, "AUTH_SMTP_HOST")).toBe(
      "development profile  AUTH_SMTP_HOST (none: mail is written to the log)",
    );
    // Checked as the start checks it, which makes the secret the line names.
    expect(existsSync(join(data, "jwt-secret"))).toBe(true);
  });

  it("prints what it can of a refused configuration, then its problems, and exits 1", () => {
    const env = {
      DATABASE_URL: PRODUCTION_ENV["DATABASE_URL"]!,
      SITE_URL: "https://app.example.com",
      AUTH_JWT_SECRET: "short-jwt-secret-4Hz",
      AUTH_JWT_EXP: "soon",
    };
    const { out, error, exitCode } = configCommand({ env, cwd: tempCwd(), dotenv: { text: "" } });
    expect(exitCode).toBe(1);
    expect(lineOf(out!, "AUTH_JWT_EXP")).toBe("environment          AUTH_JWT_EXP=soon");
    expect(lineOf(out!, "AUTH_SITE_URL")).toBe("unset                AUTH_SITE_URL");
    expect(error!.split("\n")).toEqual(
      expect.arrayContaining([
        "Invalid configuration (production profile):",
        "  AUTH_SITE_URL is required",
        "  AUTH_JWT_SECRET: must be at least 32 characters; generate one with `openssl rand -hex 32`",
        "  SITE_URL is set: did you mean AUTH_SITE_URL?",
      ]),
    );
    expect(`${out}\n${error}`).not.toContain("short-jwt-secret-4Hz");
    expect(`${out}\n${error}`).not.toContain(DATABASE_PASSWORD);
  });

  it("prints the warnings of a configuration the start takes", () => {
    const { out } = configCommand({
      env: { ...PRODUCTION_ENV, AUTH_MAILER_AUTOCONFRIM: "true" },
      cwd: tempCwd(),
      dotenv: { text: "" },
    });
    expect(out).toMatch(/^warning: AUTH_MAILER_AUTOCONFRIM is not a setting; did you mean AUTH_MAILER_AUTOCONFIRM\?$/m);
  });

  it("fails in one message when the .env file cannot be read", () => {
    const cwd = tempCwd();
    const result = configCommand({ env: {}, cwd, dotenv: { path: join(cwd, "missing.env") } });
    expect(result).toMatchObject({
      exitCode: 1,
      error: expect.stringMatching(/^Invalid configuration:\n {2}cannot read the \.env file/),
    });
    expect(result.out).toBeUndefined();
  });
});
