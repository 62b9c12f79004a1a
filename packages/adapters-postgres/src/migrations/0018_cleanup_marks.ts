import type { Migration } from "./migration.ts";

// Kept equal to src/schema/refresh-tokens.ts and cleanup-marks.ts by test/schema-drift.test.ts. Rotated refresh
// tokens were found through the children still linked to them (0017), each child unlinked as its parent went: an
// update of every index of the table for each token deleted, which cost refreshes more than the delete itself. Now
// the clean-up walks the tokens once, in creation order, and keeps in `cleanup_marks` how far it got; a token is
// created when it is written, so none ever appears behind the mark. One index on creation serves that walk and the
// search for the current tokens of inactive sessions.
export const cleanupMarks: Migration = {
  version: "0018_cleanup_marks",
  up: (ns) => `
DROP INDEX "${ns}refresh_tokens_linked_idx";
DROP INDEX "${ns}refresh_tokens_unlinked_idx";
CREATE INDEX "${ns}refresh_tokens_created_at_idx" ON "${ns}refresh_tokens" ("created_at", "id");
CREATE TABLE "${ns}cleanup_marks" (
  "kind" text NOT NULL,
  "created_at" timestamptz NOT NULL,
  "id" uuid NOT NULL,
  CONSTRAINT "${ns}cleanup_marks_pkey" PRIMARY KEY ("kind")
);
INSERT INTO "${ns}cleanup_marks" ("kind", "created_at", "id")
  VALUES ('rotated_refresh_tokens', '-infinity', '00000000-0000-0000-0000-000000000000');
`,
};
