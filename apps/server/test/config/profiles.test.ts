import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { load, PRODUCTION_ENV, problemsOf, tempCwd } from "./support.ts";

describe("the development profile, when no database URL is set", () => {
  it("fills the required settings with local values", () => {
    const cwd = tempCwd();
    const config = load({}, { cwd });
    expect(config.profile).toBe("development");
    expect(config.siteUrl).toBe("http://localhost:3000");
    expect(config.api.externalUrl).toBe("http://localhost:8081");
    expect(config.jwt.issuer).toBe("http://localhost:8081");
    expect(config.db).toMatchObject({
      driver: "postgres",
      url: undefined,
      embeddedDataDir: join(cwd, ".latchkey", "pgdata"),
    });
    expect(config.smtp).toBeUndefined();
  });

  it("builds API_EXTERNAL_URL from the port", () => {
    expect(load({ PORT: "9999" }).api.externalUrl).toBe("http://localhost:9999");
  });

  it("generates a 256-bit JWT secret once, readable by the owner only, and reuses it", () => {
    const cwd = tempCwd();
    const first = load({}, { cwd }).jwt.secret;
    const path = join(cwd, ".latchkey", "jwt-secret");
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(path, "utf8").trim()).toBe(first);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(load({}, { cwd }).jwt.secret).toBe(first);
    expect(load({}, { cwd: tempCwd() }).jwt.secret).not.toBe(first);
  });

  it("uses a given JWT_SECRET, short or not, and writes no file", () => {
    const cwd = tempCwd();
    expect(load({ AUTH_JWT_SECRET: "dev" }, { cwd }).jwt.secret).toBe("dev");
    expect(() => statSync(join(cwd, ".latchkey", "jwt-secret"))).toThrow();
  });

  it("refuses an empty stored secret rather than signing with it", () => {
    const cwd = tempCwd();
    mkdirSync(join(cwd, ".latchkey"));
    writeFileSync(join(cwd, ".latchkey", "jwt-secret"), "\n");
    const path = join(cwd, ".latchkey", "jwt-secret");
    expect(problemsOf({}, { cwd })).toEqual([`${path} is empty; delete it to generate a new development JWT secret`]);
  });

  it("still validates the values that are given", () => {
    expect(problemsOf({ AUTH_SITE_URL: "localhost:3000" })).toEqual([
      'AUTH_SITE_URL: expected an absolute http(s) URL, got "localhost:3000"',
    ]);
  });

  it("generates no secret when the configuration is refused", () => {
    const cwd = tempCwd();
    problemsOf({ AUTH_JWT_EXP: "soon" }, { cwd });
    expect(() => statSync(join(cwd, ".latchkey"))).toThrow();
  });

  it("uses SMTP when it is configured completely", () => {
    const config = load({
      AUTH_SMTP_HOST: "localhost",
      AUTH_SMTP_PORT: "1025",
      AUTH_SMTP_ADMIN_EMAIL: "dev@localhost.test",
    });
    expect(config.smtp).toMatchObject({ host: "localhost", port: 1025, adminEmail: "dev@localhost.test" });
  });

  it("refuses half an SMTP configuration", () => {
    expect(problemsOf({ AUTH_SMTP_HOST: "localhost" })).toEqual([
      "AUTH_SMTP_PORT is required when AUTH_SMTP_HOST is set",
      "AUTH_SMTP_ADMIN_EMAIL is required when AUTH_SMTP_HOST is set",
    ]);
  });
});

describe("the production profile, when a database URL is set", () => {
  const urlNames = [
    "DATABASE_URL",
    "AUTH_DATABASE_URL",
    "GOTRUE_DATABASE_URL",
    "AUTH_DB_DATABASE_URL",
    "GOTRUE_DB_DATABASE_URL",
  ];
  it.each(urlNames)("is chosen by %s", (name) => {
    const { DATABASE_URL, ...rest } = PRODUCTION_ENV;
    expect(load({ ...rest, [name]: DATABASE_URL }).profile).toBe("production");
  });

  it("requires every setting the spec requires", () => {
    expect(problemsOf({ DATABASE_URL: PRODUCTION_ENV["DATABASE_URL"] })).toEqual([
      "AUTH_SITE_URL is required",
      "AUTH_API_EXTERNAL_URL is required",
      "AUTH_JWT_SECRET is required",
      "AUTH_SMTP_HOST is required",
      "AUTH_SMTP_PORT is required",
      "AUTH_SMTP_ADMIN_EMAIL is required",
    ]);
  });

  it("refuses a JWT secret shorter than 32 characters", () => {
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_JWT_SECRET: "a".repeat(31) })).toEqual([
      "AUTH_JWT_SECRET: must be at least 32 characters; generate one with `openssl rand -hex 32`",
    ]);
    expect(load({ ...PRODUCTION_ENV, AUTH_JWT_SECRET: "3b9f1d7a5c2e8f0a4d6b1c3e5f7a9d0b" }).jwt.secret).toHaveLength(
      32,
    );
  });

  it("writes nothing to the working directory", () => {
    const cwd = tempCwd();
    load(PRODUCTION_ENV, { cwd });
    expect(() => statSync(join(cwd, ".latchkey"))).toThrow();
  });
});
