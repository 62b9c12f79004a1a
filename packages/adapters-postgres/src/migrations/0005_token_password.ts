import type { Migration } from "./migration.ts";

// Kept equal to src/schema/one-time-tokens.ts by test/schema-drift.test.ts.
export const tokenPassword: Migration = {
  version: "0005_token_password",
  up: (ns) => `
ALTER TABLE "${ns}one_time_tokens" ADD COLUMN "password_hash" text;
`,
};
