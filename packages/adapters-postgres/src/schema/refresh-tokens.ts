import { foreignKey, index, pgTable, primaryKey, text, unique, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { SessionsTable } from "./sessions.ts";

/**
 * `<ns>refresh_tokens`: digests of issued refresh tokens. No `revoked` column: a token is valid iff its session
 * points at it. `parent_id` is unique, so a token can be rotated into one child only; the clean-up deletes the
 * parent a day after the rotation, and the child's `parent_id` then names a token that is gone.
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
      // The clean-up (0018): its walk in creation order, whose children's parents go a day on, and the current
      // tokens of inactive sessions.
      index(`${ns}refresh_tokens_created_at_idx`).on(t.createdAt, t.id),
    ],
  );
}

export type RefreshTokensTable = ReturnType<typeof refreshTokensTable>;
