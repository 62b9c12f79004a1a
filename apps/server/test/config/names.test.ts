import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { load, PRODUCTION_ENV, problemsOf, tempCwd } from "./support.ts";

describe("variable names", () => {
  it("reads a GOTRUE_ variable when the AUTH_ one is not set", () => {
    expect(load({ GOTRUE_SITE_URL: "https://gotrue.example.com" }).siteUrl).toBe("https://gotrue.example.com");
  });

  it("prefers AUTH_ over GOTRUE_ when both are set", () => {
    const config = load({ AUTH_SITE_URL: "https://auth.example.com", GOTRUE_SITE_URL: "https://gotrue.example.com" });
    expect(config.siteUrl).toBe("https://auth.example.com");
  });

  it("reads an existing Supabase deployment's environment", () => {
    const config = load({
      GOTRUE_DB_DATABASE_URL: "postgres://supabase_auth_admin:pw@db:5432/postgres",
      GOTRUE_DB_DRIVER: "postgres",
      GOTRUE_API_HOST: "0.0.0.0",
      GOTRUE_API_PORT: "9999",
      API_EXTERNAL_URL: "http://localhost:8000",
      GOTRUE_SITE_URL: "http://localhost:3000",
      GOTRUE_JWT_SECRET: "b8e1f04c7a2d95e3c6f1a08d4b7e2c59f3a6d1e8",
      GOTRUE_JWT_EXP: "3600",
      GOTRUE_SMTP_ADMIN_EMAIL: "admin@example.com",
      GOTRUE_SMTP_HOST: "supabase-mail",
      GOTRUE_SMTP_PORT: "2500",
      GOTRUE_MAILER_URLPATHS_INVITE: "/auth/v1/verify",
      GOTRUE_EXTERNAL_PHONE_ENABLED: "true",
    });
    expect(config.profile).toBe("production");
    expect(config.api).toMatchObject({ host: "0.0.0.0", port: 9999, externalUrl: "http://localhost:8000" });
    expect(config.mailer.urlPaths.invite).toBe("/auth/v1/verify");
    expect(config.signup.phoneEnabled).toBe(true);
  });

  it("reads PORT, DATABASE_URL and LOG_LEVEL without a prefix", () => {
    const config = load({ ...PRODUCTION_ENV, PORT: "9000", LOG_LEVEL: "debug" });
    expect(config.api.port).toBe(9000);
    expect(config.db.url).toBe(PRODUCTION_ENV["DATABASE_URL"]);
    expect(config.log.level).toBe("debug");
  });

  it("reads REDIS_URL as AUTH_REDIS_URL, unprefixed, or as GOTRUE_REDIS_URL, in that order", () => {
    const [auth, plain, gotrue] = ["redis://auth:6379", "redis://plain:6379", "redis://gotrue:6379"];
    expect(load({ GOTRUE_REDIS_URL: gotrue }).rateLimit.redisUrl).toBe(gotrue);
    expect(load({ REDIS_URL: plain, GOTRUE_REDIS_URL: gotrue }).rateLimit.redisUrl).toBe(plain);
    expect(load({ AUTH_REDIS_URL: auth, REDIS_URL: plain, GOTRUE_REDIS_URL: gotrue }).rateLimit.redisUrl).toBe(auth);
    expect(problemsOf({ REDIS_URL: "http://cache" })).toEqual(["REDIS_URL: expected a redis:// or rediss:// URL"]);
  });

  it("prefers the AUTH_ name over the unprefixed one", () => {
    expect(load({ PORT: "9000", AUTH_PORT: "9001" }).api.port).toBe(9001);
    expect(load({ LOG_LEVEL: "debug", AUTH_LOG_LEVEL: "warn" }).log.level).toBe("warn");
  });

  it("reads API_PORT as PORT and DB_DATABASE_URL as DATABASE_URL", () => {
    const { DATABASE_URL, ...withoutUrl } = PRODUCTION_ENV;
    const config = load({ ...withoutUrl, AUTH_API_PORT: "9100", AUTH_DB_DATABASE_URL: DATABASE_URL });
    expect(config.api.port).toBe(9100);
    expect(config.db.url).toBe(DATABASE_URL);
    expect(config.profile).toBe("production");
  });

  it("names the variable as it was written in an error", () => {
    expect(problemsOf({ GOTRUE_JWT_EXP: "soon" })).toEqual([
      'GOTRUE_JWT_EXP: expected whole seconds above 0 (60) or a Go duration (60s, 15m, 1h30m), got "soon"',
    ]);
    expect(problemsOf({ PORT: "http" })).toEqual(['PORT: expected a whole number from 0 to 65535, got "http"']);
    expect(problemsOf({ GOTRUE_API_PORT: "-1" })).toEqual([
      'GOTRUE_API_PORT: expected a whole number from 0 to 65535, got "-1"',
    ]);
  });
});

describe("sources", () => {
  it("reads the .env file", () => {
    const config = load({}, { dotenv: "AUTH_SITE_URL=https://from-file.example.com\nAUTH_JWT_EXP=600\n" });
    expect(config.siteUrl).toBe("https://from-file.example.com");
    expect(config.jwt.expSeconds).toBe(600);
  });

  it("lets the environment win over the .env file", () => {
    const config = load(
      { AUTH_SITE_URL: "https://from-env.example.com" },
      { dotenv: "AUTH_SITE_URL=https://from-file.example.com\nAUTH_JWT_AUD=file-audience\n" },
    );
    expect(config.siteUrl).toBe("https://from-env.example.com");
    expect(config.jwt.aud).toBe("file-audience");
  });

  it("lets the environment win over the .env file whatever names either uses", () => {
    const config = load(
      { PORT: "2222", GOTRUE_JWT_AUD: "env-audience" },
      { dotenv: "AUTH_PORT=1111\nAUTH_JWT_AUD=file-audience\n" },
    );
    expect(config.api.port).toBe(2222);
    expect(config.jwt.aud).toBe("env-audience");
  });

  it("treats an empty value as not set, so it does not hide the .env value", () => {
    const config = load({ AUTH_JWT_AUD: "", AUTH_SITE_URL: "  " }, { dotenv: "AUTH_JWT_AUD=file-audience\n" });
    expect(config.jwt.aud).toBe("file-audience");
    expect(config.siteUrl).toBe("http://localhost:3000");
  });

  it("reads <cwd>/.env by default, and a given path when told", () => {
    const cwd = tempCwd();
    writeFileSync(join(cwd, ".env"), 'AUTH_JWT_AUD="default-file"\n');
    writeFileSync(join(cwd, "other.env"), "AUTH_JWT_AUD=other-file\n");
    expect(loadConfig({ env: {}, cwd }).jwt.aud).toBe("default-file");
    expect(loadConfig({ env: {}, cwd, dotenv: { path: join(cwd, "other.env") } }).jwt.aud).toBe("other-file");
  });

  it("starts without a .env file, but refuses a given path that does not exist", () => {
    const cwd = tempCwd();
    expect(loadConfig({ env: {}, cwd }).profile).toBe("development");
    expect(() => loadConfig({ env: {}, cwd, dotenv: { path: join(cwd, "missing.env") } })).toThrow(ConfigError);
  });

  it("reads only the environment it is given, not process.env", () => {
    vi.stubEnv("AUTH_SITE_URL", "https://process.example.com");
    try {
      expect(load({}).siteUrl).toBe("http://localhost:3000");
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
