// What the global setup hands to test files (vitest `provide` / `inject`).
declare module "vitest" {
  export interface ProvidedContext {
    /** URL of the PostgreSQL container the global setup started; absent when it started none. */
    latchkeyTestDatabaseUrl?: string;
    /** A fresh cluster's files, for embedded test databases to start from; absent when none was made. */
    latchkeyEmbeddedTemplate?: EmbeddedTemplate;
  }
}

export interface EmbeddedTemplate {
  /** The cluster's folder. */
  readonly dataDir: string;
  /** The same files as one tar, as PGlite loads it. */
  readonly tar: string;
}

export const TEST_DATABASE_URL_KEY = "latchkeyTestDatabaseUrl";
export const EMBEDDED_TEMPLATE_KEY = "latchkeyEmbeddedTemplate";
