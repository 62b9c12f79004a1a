import { index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/** `<ns>used_id_tokens`: the id_tokens signed in with, by keyed digest, each until it expires (replays refused). */
export function usedIdTokensTable(ns: string) {
  return pgTable(
    `${ns}used_id_tokens`,
    {
      digest: text("digest").notNull(),
      expiresAt: timestamptz("expires_at").notNull(),
    },
    (t) => [
      primaryKey({ name: `${ns}used_id_tokens_pkey`, columns: [t.digest] }),
      // Expired ones are removed by time.
      index(`${ns}used_id_tokens_expires_at_idx`).on(t.expiresAt),
    ],
  );
}
