import type { Migration } from "./migration.ts";

// Kept equal to src/schema/refresh-tokens.ts, sessions.ts, one-time-tokens.ts, flow-states.ts, mfa-challenges.ts,
// mfa-factors.ts, outbox.ts and users.ts by test/schema-drift.test.ts. The clean-up (StaleRowStore) deletes stale
// rows a batch at a time, each batch found by an index, so that no batch reads a whole table:
// - refresh tokens by creation, in two halves that every token is in one of: those still linked to the token they
//   replaced (parent_id set), whose parents the clean-up deletes a day on and then unlinks them, so that each is
//   looked at once; and the rest, where the current tokens of inactive sessions are found. A token is in one index
//   only, so a refresh costs one index entry for both. sessions.rotated_at has no index, as it changes on every
//   refresh and an index on it would cost the refresh its HOT update;
// - sessions by creation (SESSIONS_TIMEBOX), and by their end, only those that have one;
// - one-time tokens, PKCE flows and MFA challenges by creation; factors by creation, only the unverified ones;
// - finished messages (no attempt left: delivered or given up) by creation, apart from those still to deliver;
// - anonymous users by creation, apart from every other user.
// Reused as they are: oauth_flows(created_at), and expires_at of oauth_authorizations, webauthn_challenges and
// used_id_tokens. None is on a column a refresh writes. Names fit 63 bytes after the longest namespace.
export const cleanupIndexes: Migration = {
  version: "0017_cleanup_indexes",
  up: (ns) => `
CREATE INDEX "${ns}refresh_tokens_linked_idx" ON "${ns}refresh_tokens" ("created_at") WHERE "parent_id" IS NOT NULL;
CREATE INDEX "${ns}refresh_tokens_unlinked_idx" ON "${ns}refresh_tokens" ("created_at") WHERE "parent_id" IS NULL;
CREATE INDEX "${ns}sessions_created_at_idx" ON "${ns}sessions" ("created_at");
CREATE INDEX "${ns}sessions_not_after_idx" ON "${ns}sessions" ("not_after") WHERE "not_after" IS NOT NULL;
CREATE INDEX "${ns}one_time_tokens_created_at_idx" ON "${ns}one_time_tokens" ("created_at");
CREATE INDEX "${ns}flow_states_created_at_idx" ON "${ns}flow_states" ("created_at");
CREATE INDEX "${ns}mfa_challenges_created_at_idx" ON "${ns}mfa_challenges" ("created_at");
CREATE INDEX "${ns}mfa_factors_unverified_created_idx" ON "${ns}mfa_factors" ("created_at")
  WHERE "status" = 'unverified';
CREATE INDEX "${ns}outbox_finished_idx" ON "${ns}outbox" ("created_at") WHERE "next_attempt_at" IS NULL;
CREATE INDEX "${ns}users_anonymous_created_at_idx" ON "${ns}users" ("created_at") WHERE "is_anonymous";
`,
};
