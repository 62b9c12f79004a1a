import type { Migration } from "./migration.ts";

// Kept equal to src/schema/users.ts and src/schema/one-time-tokens.ts by test/schema-drift.test.ts. What has been
// proven and what waits for proof: which address of a pending secure email change has confirmed it (the change
// completes on that record, never on the other address's token being gone), and the user_metadata chosen by the
// request a confirmation answers, applied only when that confirmation is verified.
export const provenChoices: Migration = {
  version: "0008_proven_choices",
  up: (ns) => `
ALTER TABLE "${ns}users" ADD COLUMN "email_change_confirmed_by" text;
ALTER TABLE "${ns}one_time_tokens" ADD COLUMN "user_metadata" jsonb;
`,
};
