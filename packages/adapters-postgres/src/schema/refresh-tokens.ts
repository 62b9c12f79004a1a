import { foreignKey, index, pgTable, primaryKey, text, unique, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { SessionsTable } from "./sessions.ts";

/**
 * `<ns>refresh_tokens`: digests of issued refresh tokens. No `revoked` column: a token is valid iff its session
 * points at it. `parent_id` is unique, so a token can be rotated into one child only.
 */
export function refreshTokensTable(ns: string, sessions: SessionsTable) {
  return pgTable(
    `${ns}refresh_tokens`,
    {
      id: uuid("id").notNull(),
      sessionId: uuid("session_id").notNull(),
      parentId: uuid("parent_id"),
      tokenHash: text("token_hash").notNull(),
      createdAt: timestamptz("created_at").notNull(),
    },
    (t) => [
      primaryKey({ name: `${ns}refresh_tokens_pkey`, columns: [t.id] }),
      unique(`${ns}refresh_tokens_token_hash_key`).on(t.tokenHash),
      unique(`${ns}refresh_tokens_parent_id_key`).on(t.parentId),
      foreignKey({
        name: `${ns}refresh_tokens_session_id_fkey`,
        columns: [t.sessionId],
        foreignColumns: [sessions.id],
      }).onDelete("cascade"),
      index(`${ns}refresh_tokens_session_id_idx`).on(t.sessionId),
    ],
  );
}

export type RefreshTokensTable = ReturnType<typeof refreshTokensTable>;
