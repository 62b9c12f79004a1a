import { sql } from "drizzle-orm";
import { index, integer, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/**
 * `<ns>outbox`: messages to deliver, written with the change that calls for them. `lease_until` keeps a claimed
 * message from every other worker while one sends it, and `claim_id` names that worker's claim, so that only it
 * records the outcome. The partial index holds only what is still to deliver. `claim_id` comes last: a later
 * migration added it.
 */
export function outboxTable(ns: string) {
  return pgTable(
    `${ns}outbox`,
    {
      id: uuid("id").notNull(),
      channel: text("channel").$type<"email" | "sms">().notNull(),
      sealedMessage: text("sealed_message"),
      createdAt: timestamptz("created_at").notNull(),
      nextAttemptAt: timestamptz("next_attempt_at"),
      expiresAt: timestamptz("expires_at").notNull(),
      attempts: integer("attempts").notNull(),
      deliveredAt: timestamptz("delivered_at"),
      lastError: text("last_error"),
      leaseUntil: timestamptz("lease_until"),
      claimId: uuid("claim_id"),
    },
    (t) => [
      primaryKey({ name: `${ns}outbox_pkey`, columns: [t.id] }),
      index(`${ns}outbox_due_idx`).on(t.nextAttemptAt).where(sql`${t.nextAttemptAt} IS NOT NULL`),
      // The clean-up removes finished messages (no attempt left) by age (0017).
      index(`${ns}outbox_finished_idx`).on(t.createdAt).where(sql`${t.nextAttemptAt} IS NULL`),
    ],
  );
}
