import type { Migration } from "./migration.ts";

// Kept equal to src/schema/used-id-tokens.ts by test/schema-drift.test.ts. The id_tokens signed in with
// (grant_type=id_token), by keyed digest, until each expires: a second use is a replay.
export const usedIdTokens: Migration = {
  version: "0012_used_id_tokens",
  up: (ns) => `
CREATE TABLE "${ns}used_id_tokens" (
  "digest" text NOT NULL,
  "expires_at" timestamptz NOT NULL,
  CONSTRAINT "${ns}used_id_tokens_pkey" PRIMARY KEY ("digest")
);
CREATE INDEX "${ns}used_id_tokens_expires_at_idx" ON "${ns}used_id_tokens" ("expires_at");
`,
};
