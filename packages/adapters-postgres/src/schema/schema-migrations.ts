import { pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/** `<ns>schema_migrations`: the versions applied, one row each. */
export function schemaMigrationsTable(ns: string) {
  return pgTable(
    `${ns}schema_migrations`,
    {
      version: text("version").notNull(),
      appliedAt: timestamptz("applied_at").notNull(),
    },
    (t) => [primaryKey({ name: `${ns}schema_migrations_pkey`, columns: [t.version] })],
  );
}
