import type { Migration } from "./migration.ts";

// Kept equal to src/schema/one-time-tokens.ts by test/schema-drift.test.ts. The provider identity a confirmation
// carries (a sign-in whose address the provider did not verify): the account keeps it only once that confirmation
// is verified, and the token lets go of it when the identity goes.
export const tokenIdentity: Migration = {
  version: "0011_token_identity",
  up: (ns) => `
ALTER TABLE "${ns}one_time_tokens" ADD COLUMN "identity_id" uuid;
ALTER TABLE "${ns}one_time_tokens" ADD CONSTRAINT "${ns}one_time_tokens_identity_id_fkey"
  FOREIGN KEY ("identity_id") REFERENCES "${ns}identities" ("id") ON DELETE SET NULL;
CREATE INDEX "${ns}one_time_tokens_identity_id_idx" ON "${ns}one_time_tokens" ("identity_id")
  WHERE "identity_id" IS NOT NULL;
`,
};
