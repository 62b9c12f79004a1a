// What the integration project's global setup hands to test files (vitest `provide` / `inject`).
declare module "vitest" {
  export interface ProvidedContext {
    /** URL of the PostgreSQL container the global setup started; absent when it started none. */
    latchkeyTestDatabaseUrl?: string;
  }
}

export const TEST_DATABASE_URL_KEY = "latchkeyTestDatabaseUrl";
