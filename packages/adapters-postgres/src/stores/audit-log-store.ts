import type { AuditLogStore } from "@latchkey/domain";
import { desc, getTableColumns } from "drizzle-orm";
import type { Database } from "../database.ts";
import type { Schema } from "../schema/create-schema.ts";

/** Security events, append only. */
export function createAuditLogStore(db: Database, schema: Schema): AuditLogStore {
  const { auditLogEntries: entries } = schema;
  return {
    async append(entry) {
      await db.insert(entries).values({ ...entry, traits: { ...entry.traits } });
    },

    async list({ page, perPage }) {
      const { seq: _order, ...columns } = getTableColumns(entries);
      return db
        .select(columns)
        .from(entries)
        .orderBy(desc(entries.createdAt), desc(entries.seq))
        .limit(perPage)
        .offset((page - 1) * perPage);
    },
  };
}
