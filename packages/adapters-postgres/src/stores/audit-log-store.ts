import type { AuditEntry, AuditLogStore } from "@latchkey/domain";
import { and, count, desc, getTableColumns, inArray, or } from "drizzle-orm";
import type { Database } from "../database.ts";
import type { Schema } from "../schema/create-schema.ts";
import { containsText } from "./contains-text.ts";
import { insertOne } from "./prepared.ts";

/** The row of an entry: its traits copied, as a plain object for jsonb. */
export const toAuditRow = (entry: AuditEntry) => ({ ...entry, traits: { ...entry.traits } });

/** Security events, append only. */
export function createAuditLogStore(db: Database, schema: Schema): AuditLogStore {
  const { auditLogEntries: entries } = schema;
  return {
    async append(entry) {
      await insertOne(db, {
        namespace: schema.namespace,
        name: "audit_append",
        table: entries,
        row: toAuditRow(entry),
      });
    },

    async list({ page, perPage, author, actions }) {
      // No action asked for: nothing can match, and `in ()` is not SQL.
      if (actions?.length === 0) return { entries: [], total: 0 };
      const where = and(
        author ? or(containsText(entries.actorUsername, author), containsText(entries.actorName, author)) : undefined,
        actions === undefined ? undefined : inArray(entries.action, actions),
      );
      const { seq: _order, ...columns } = getTableColumns(entries);
      const [found, [counted]] = await Promise.all([
        db
          .select(columns)
          .from(entries)
          .where(where)
          .orderBy(desc(entries.createdAt), desc(entries.seq))
          .limit(perPage)
          .offset((page - 1) * perPage),
        db.select({ total: count() }).from(entries).where(where),
      ]);
      return { entries: found, total: counted?.total ?? 0 };
    },
  };
}
