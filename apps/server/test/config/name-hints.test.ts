import { describe, expect, it } from "vitest";
import { ConfigError, type ConfigSources, loadConfig, loadDatabaseConfig } from "../../src/config/index.ts";
import { load, PRODUCTION_ENV, tempCwd } from "./support.ts";

const DATABASE_URL = PRODUCTION_ENV["DATABASE_URL"]!;

/** What Supabase's self-hosting .env holds (its docker-compose.yml hands these to GoTrue under GOTRUE_ names). */
const SUPABASE_DOCKER_ENV: Readonly<Record<string, string>> = {
  SITE_URL: "https://app.example.com",
  API_EXTERNAL_URL: "https://auth.example.com",
  JWT_SECRET: "supabase-jwt-secret-7Hq2mZ9xK4pL8vN3cR6tY1wB5",
  JWT_EXPIRY: "3600",
  ADDITIONAL_REDIRECT_URLS: "https://app.example.com/**",
  ENABLE_EMAIL_AUTOCONFIRM: "true",
  SMTP_HOST: "smtp.example.com",
  SMTP_PORT: "587",
  SMTP_PASS: "smtp-pass-3Gd8",
  SMTP_ADMIN_EMAIL: "admin@example.com",
  POSTGRES_PASSWORD: "postgres-pass-5Kw1",
};

/** The refused load's error. */
function refusal(
  env: Record<string, string | undefined>,
  load: (sources: ConfigSources) => unknown = loadConfig,
): ConfigError {
  try {
    load({ env, cwd: tempCwd(), dotenv: { text: "" } });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected the configuration to be refused");
}

describe("a refused start, when variables are set under names Latchkey does not read", () => {
  it("says, with the missing settings, which of Supabase's names were seen and what they probably meant", () => {
    const error = refusal({ DATABASE_URL, ...SUPABASE_DOCKER_ENV });
    expect(error.problems).toEqual(["AUTH_SITE_URL is required", "AUTH_JWT_SECRET is required", ...smtpRequired()]);
    expect(error.hints).toEqual([
      "SITE_URL is set: did you mean AUTH_SITE_URL?",
      "ADDITIONAL_REDIRECT_URLS is set: did you mean AUTH_URI_ALLOW_LIST?",
      "JWT_SECRET is set: did you mean AUTH_JWT_SECRET?",
      "JWT_EXPIRY is set: did you mean AUTH_JWT_EXP?",
      "ENABLE_EMAIL_AUTOCONFIRM is set: did you mean AUTH_MAILER_AUTOCONFIRM?",
      "SMTP_HOST is set: did you mean AUTH_SMTP_HOST?",
      "SMTP_PORT is set: did you mean AUTH_SMTP_PORT?",
      "SMTP_PASS is set: did you mean AUTH_SMTP_PASS?",
      "SMTP_ADMIN_EMAIL is set: did you mean AUTH_SMTP_ADMIN_EMAIL?",
    ]);
    // In the one message the start prints, after the problems; API_EXTERNAL_URL is read as it is, as GoTrue reads it.
    expect(error.message.split("\n").slice(-error.hints.length)).toEqual(error.hints.map((hint) => `  ${hint}`));
    expect(error.message).not.toContain("API_EXTERNAL_URL");
  });

  it("never shows a value", () => {
    const { message } = refusal({ DATABASE_URL, ...SUPABASE_DOCKER_ENV, AUTH_SMTP_PAS: "smtp-pass-9Zr" });
    for (const value of [...Object.values(SUPABASE_DOCKER_ENV), "smtp-pass-9Zr"]) {
      if (value.length > 5) expect(message).not.toContain(value);
    }
  });

  it("names a misspelt AUTH_ or GOTRUE_ variable and the setting it is closest to", () => {
    const error = refusal({ DATABASE_URL, AUTH_SITE_ULR: "https://app.example.com", GOTRUE_JWT_SECRTE: "x" });
    expect(error.problems).toContain("AUTH_SITE_URL is required");
    expect(error.hints).toEqual([
      "AUTH_SITE_ULR is not a setting; did you mean AUTH_SITE_URL?",
      "GOTRUE_JWT_SECRTE is not a setting; did you mean GOTRUE_JWT_SECRET?",
    ]);
  });

  it("points Supabase's database variables at DATABASE_URL, and GoTrue's unprefixed names at ours", () => {
    const error = refusal({
      DATABASE_URL,
      DB_DATABASE_URL: DATABASE_URL,
      POSTGRES_HOST: "db",
      POSTGRES_PASSWORD: "postgres-pass-5Kw1",
      API_PORT: "9999",
    });
    // DATABASE_URL is set, so the database's names are not hinted at; the port's is.
    expect(error.hints).toEqual(["API_PORT is set: did you mean PORT?"]);
    const development = load({ POSTGRES_HOST: "db", POSTGRES_PASSWORD: "postgres-pass-5Kw1" });
    expect(development.warnings).toContain(
      "POSTGRES_HOST, POSTGRES_PASSWORD are set: did you mean DATABASE_URL (one URL: postgres://USER:PASSWORD@HOST:PORT/DATABASE)?",
    );
  });

  it("gives no hint for a setting that is set under a name it is read by", () => {
    const error = refusal({ DATABASE_URL, AUTH_SITE_URL: "https://app.example.com", SITE_URL: "https://other" });
    expect(error.hints).toEqual([]);
  });

  it("are said at a start that goes on too, as warnings", () => {
    const config = load({ ...PRODUCTION_ENV, JWT_EXPIRY: "600", AUTH_JWT_EXP: undefined });
    expect(config.warnings).toContain("JWT_EXPIRY is set: did you mean AUTH_JWT_EXP?");
    expect(config.jwt.expSeconds).toBe(3600);
  });

  it("names only the settings a subcommand reads", () => {
    const error = refusal(
      { DATABASE_URL: "mysql://db/auth", SITE_URL: "https://app.example.com", AUTH_DB_NAMESPCE: "auth_" },
      loadDatabaseConfig,
    );
    expect(error.hints).toEqual(["AUTH_DB_NAMESPCE is not a setting; did you mean AUTH_DB_NAMESPACE?"]);
  });
});

function smtpRequired(): string[] {
  return ["AUTH_SMTP_HOST is required", "AUTH_SMTP_PORT is required", "AUTH_SMTP_ADMIN_EMAIL is required"];
}
