import type { OutboxEntry, OutboxStore } from "@latchkey/domain";
import { and, asc, eq, getTableColumns, gt, inArray, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import type { Database } from "../database.ts";
import type { Schema } from "../schema/create-schema.ts";

/** The NOTIFY channel of a namespace's outbox: lower case, as LISTEN folds unquoted names. */
export const outboxChannel = (namespace: string) => `${namespace}outbox`.toLowerCase();

/** Queued messages, delivered by whichever worker claims them first. */
export function createOutboxStore(db: Database, schema: Schema): OutboxStore {
  const { outbox } = schema;
  const { leaseUntil: _lease, claimId: _claim, ...entryColumns } = getTableColumns(outbox);
  const channel = outboxChannel(schema.namespace);

  return {
    async enqueue(entry) {
      // One statement: the row, and a NOTIFY that PostgreSQL delivers when (and only if) the transaction commits.
      const row = {
        [outbox.id.name]: entry.id,
        [outbox.channel.name]: entry.channel,
        [outbox.sealedMessage.name]: entry.sealedMessage,
        [outbox.createdAt.name]: entry.createdAt,
        [outbox.nextAttemptAt.name]: entry.nextAttemptAt,
        [outbox.expiresAt.name]: entry.expiresAt,
        [outbox.attempts.name]: entry.attempts,
        [outbox.deliveredAt.name]: entry.deliveredAt,
        [outbox.lastError.name]: entry.lastError,
      };
      const columns = sql.join(
        Object.keys(row).map((name) => sql.identifier(name)),
        sql`, `,
      );
      const values = sql.join(
        Object.values(row).map((value) =>
          value instanceof Date ? sql`${value.toISOString()}::timestamptz` : sql`${value}`,
        ),
        sql`, `,
      );
      await db.execute(sql`
        WITH queued AS (INSERT INTO ${outbox} (${columns}) VALUES (${values}) RETURNING 1)
        SELECT pg_notify(${channel}, '') FROM queued`);
    },

    async claimDue({ now, limit, leaseUntil, claim }) {
      // The classic queue: SKIP LOCKED lets concurrent workers take different rows instead of waiting, and the
      // lease keeps a row claimed after this statement's lock is gone, while the message is being sent.
      const due = db
        .select({ id: outbox.id })
        .from(outbox)
        .where(and(lte(outbox.nextAttemptAt, now), or(isNull(outbox.leaseUntil), lte(outbox.leaseUntil, now))))
        .orderBy(asc(outbox.nextAttemptAt))
        .limit(limit)
        .for("update", { skipLocked: true });
      const claimed: OutboxEntry[] = await db
        .update(outbox)
        .set({ leaseUntil, claimId: claim })
        .where(and(inArray(outbox.id, due), isNotNull(outbox.nextAttemptAt)))
        .returning(entryColumns);
      return claimed.sort((a, b) => (a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0));
    },

    async renewLeases({ held, now, leaseUntil }) {
      if (held.length === 0) return [];
      const pairs = sql.join(
        held.map(({ id, claim }) => sql`(${id}::uuid, ${claim}::uuid)`),
        sql`, `,
      );
      // Only a lease still running under its claim: one that ran out may be another worker's by now.
      const renewed = await db
        .update(outbox)
        .set({ leaseUntil })
        .where(and(sql`(${outbox.id}, ${outbox.claimId}) IN (${pairs})`, gt(outbox.leaseUntil, now)))
        .returning({ id: outbox.id });
      return renewed.map((row) => row.id);
    },

    async pending() {
      // Only rows still to deliver carry next_attempt_at: the partial index holds exactly those.
      return db
        .select({
          channel: outbox.channel,
          count: sql<number>`count(*)::int`,
          oldestCreatedAt: sql`min(${outbox.createdAt})`.mapWith(outbox.createdAt),
        })
        .from(outbox)
        .where(isNotNull(outbox.nextAttemptAt))
        .groupBy(outbox.channel);
    },

    async markDelivered({ id, claim }, at) {
      const written = await db
        .update(outbox)
        .set({ deliveredAt: at, nextAttemptAt: null, sealedMessage: null, leaseUntil: null, claimId: null })
        .where(and(eq(outbox.id, id), eq(outbox.claimId, claim)))
        .returning({ id: outbox.id });
      return written.length > 0;
    },

    async markFailed({ id, claim }, { attempts, nextAttemptAt, error }) {
      const written = await db
        .update(outbox)
        .set({
          attempts,
          nextAttemptAt,
          lastError: error,
          leaseUntil: null,
          claimId: null,
          // Given up: nothing will read the message again, so its tokens go.
          ...(nextAttemptAt === null ? { sealedMessage: null } : {}),
        })
        .where(and(eq(outbox.id, id), eq(outbox.claimId, claim)))
        .returning({ id: outbox.id });
      return written.length > 0;
    },
  };
}
