import { describe, expect, it } from "vitest";
import { loadDatabaseConfig, loadImportConfig } from "../../src/config/index.ts";
import { load, PRODUCTION_ENV, problemsOf, tempCwd } from "./support.ts";

const DATABASE_URL = PRODUCTION_ENV["DATABASE_URL"]!;

describe("DB_DRIVER", () => {
  it("is postgres when only DATABASE_URL is set: what `migrate` needs", () => {
    const config = loadDatabaseConfig({ env: { DATABASE_URL }, cwd: tempCwd(), dotenv: { text: "" } });
    expect(config.profile).toBe("production");
    expect(config.db).toMatchObject({ driver: "postgres", url: DATABASE_URL });
  });

  it("is postgres without being set at `import` and at `serve`", () => {
    const secret = { AUTH_JWT_SECRET: PRODUCTION_ENV["AUTH_JWT_SECRET"] };
    const imported = loadImportConfig({ env: { DATABASE_URL, ...secret }, cwd: tempCwd(), dotenv: { text: "" } });
    expect(imported.db.driver).toBe("postgres");
    expect(load({ ...PRODUCTION_ENV, AUTH_DB_DRIVER: undefined }).db.driver).toBe("postgres");
  });

  it("still refuses another driver", () => {
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_DB_DRIVER: "mysql" })).toEqual([
      'AUTH_DB_DRIVER: expected one of postgres, got "mysql"',
    ]);
  });
});
