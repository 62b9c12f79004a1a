import type { Migration } from "./migration.ts";

// Kept equal to src/schema/one-time-tokens.ts and src/schema/flow-states.ts by test/schema-drift.test.ts.
export const pkce: Migration = {
  version: "0004_pkce",
  up: (ns) => `
ALTER TABLE "${ns}one_time_tokens"
  ADD COLUMN "code_challenge" text,
  ADD COLUMN "code_challenge_method" text;
CREATE INDEX "${ns}one_time_tokens_relates_to_idx" ON "${ns}one_time_tokens" ("relates_to");

CREATE TABLE "${ns}flow_states" (
  "id" uuid NOT NULL,
  "auth_code_hash" text NOT NULL,
  "user_id" uuid NOT NULL,
  "code_challenge" text NOT NULL,
  "code_challenge_method" text NOT NULL,
  "authentication_method" text NOT NULL,
  "created_at" timestamptz NOT NULL,
  CONSTRAINT "${ns}flow_states_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}flow_states_auth_code_hash_key" UNIQUE ("auth_code_hash"),
  CONSTRAINT "${ns}flow_states_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "${ns}users" ("id") ON DELETE CASCADE
);
CREATE INDEX "${ns}flow_states_user_id_idx" ON "${ns}flow_states" ("user_id");
`,
};
