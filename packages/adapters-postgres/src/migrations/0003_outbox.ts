import type { Migration } from "./migration.ts";

// Kept equal to src/schema/outbox.ts by test/schema-drift.test.ts.
export const outbox: Migration = {
  version: "0003_outbox",
  up: (ns) => `
CREATE TABLE "${ns}outbox" (
  "id" uuid NOT NULL,
  "channel" text NOT NULL,
  "sealed_message" text,
  "created_at" timestamptz NOT NULL,
  "next_attempt_at" timestamptz,
  "expires_at" timestamptz NOT NULL,
  "attempts" integer NOT NULL,
  "delivered_at" timestamptz,
  "last_error" text,
  "lease_until" timestamptz,
  CONSTRAINT "${ns}outbox_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "${ns}outbox_due_idx" ON "${ns}outbox" ("next_attempt_at") WHERE "next_attempt_at" IS NOT NULL;
`,
};
