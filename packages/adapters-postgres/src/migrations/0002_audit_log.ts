import type { Migration } from "./migration.ts";

// Kept equal to src/schema/audit-log-entries.ts by test/schema-drift.test.ts.
export const auditLog: Migration = {
  version: "0002_audit_log",
  up: (ns) => `
CREATE TABLE "${ns}audit_log_entries" (
  "id" uuid NOT NULL,
  "action" text NOT NULL,
  "actor_id" uuid NOT NULL,
  "actor_username" text NOT NULL,
  "actor_name" text,
  "traits" jsonb NOT NULL,
  "ip_address" text,
  "user_agent" text,
  "created_at" timestamptz NOT NULL,
  "seq" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  CONSTRAINT "${ns}audit_log_entries_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "${ns}audit_log_entries_order_idx" ON "${ns}audit_log_entries" ("created_at", "seq");
CREATE INDEX "${ns}audit_log_entries_actor_id_idx" ON "${ns}audit_log_entries" ("actor_id");
`,
};
