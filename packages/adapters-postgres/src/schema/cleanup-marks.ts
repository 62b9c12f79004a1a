import { pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/**
 * `<ns>cleanup_marks`: how far a clean-up that walks a table in creation order has got, one row per kind (today
 * `rotated_refresh_tokens`, written by migration 0018): the (created_at, id) of the last row it looked at. Whichever
 * instance locks the row takes that kind's next batch; the others skip it.
 */
export function cleanupMarksTable(ns: string) {
  return pgTable(
    `${ns}cleanup_marks`,
    {
      kind: text("kind").notNull(),
      createdAt: timestamptz("created_at").notNull(),
      id: uuid("id").notNull(),
    },
    (t) => [primaryKey({ name: `${ns}cleanup_marks_pkey`, columns: [t.kind] })],
  );
}
