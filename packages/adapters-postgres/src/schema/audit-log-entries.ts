import type { AuditAction } from "@latchkey/domain";
import { bigint, index, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/**
 * `<ns>audit_log_entries`: security events. No foreign key to users: the record of what a user did outlives the
 * user.
 */
export function auditLogEntriesTable(ns: string) {
  return pgTable(
    `${ns}audit_log_entries`,
    {
      id: uuid("id").notNull(),
      action: text("action").$type<AuditAction>().notNull(),
      actorId: uuid("actor_id").notNull(),
      actorUsername: text("actor_username").notNull(),
      actorName: text("actor_name"),
      traits: jsonb("traits").$type<Record<string, unknown>>().notNull(),
      ipAddress: text("ip_address"),
      userAgent: text("user_agent"),
      createdAt: timestamptz("created_at").notNull(),
      // Insertion order: the entries of one transaction share their time and must still list in order.
      seq: bigint("seq", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
    },
    (t) => [
      primaryKey({ name: `${ns}audit_log_entries_pkey`, columns: [t.id] }),
      index(`${ns}audit_log_entries_order_idx`).on(t.createdAt, t.seq),
      index(`${ns}audit_log_entries_actor_id_idx`).on(t.actorId),
    ],
  );
}
