import type { Migration } from "./migration.ts";

// Kept equal to src/schema/outbox.ts by test/schema-drift.test.ts.
export const outboxClaim: Migration = {
  version: "0006_outbox_claim",
  up: (ns) => `
ALTER TABLE "${ns}outbox" ADD COLUMN "claim_id" uuid;
`,
};
