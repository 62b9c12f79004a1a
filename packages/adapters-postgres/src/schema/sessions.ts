import type { Aal, AuthMethod } from "@latchkey/domain";
import { foreignKey, index, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { UsersTable } from "./users.ts";

/** One entry of `sessions.amr`, as stored: the time as an ISO 8601 string. */
export interface AmrJson {
  readonly method: AuthMethod;
  readonly at: string;
}

/**
 * `<ns>sessions`: one row per sign-in. `refresh_token_id` has no foreign key: a session is written before its
 * first token, and a pointer to a token that is gone simply matches nothing.
 */
export function sessionsTable(ns: string, users: UsersTable) {
  return pgTable(
    `${ns}sessions`,
    {
      id: uuid("id").notNull(),
      userId: uuid("user_id").notNull(),
      aal: text("aal").$type<Aal>().notNull(),
      amr: jsonb("amr").$type<AmrJson[]>().notNull(),
      refreshTokenId: uuid("refresh_token_id"),
      previousRefreshTokenId: uuid("previous_refresh_token_id"),
      rotatedAt: timestamptz("rotated_at"),
      ip: text("ip"),
      userAgent: text("user_agent"),
      notAfter: timestamptz("not_after"),
      createdAt: timestamptz("created_at").notNull(),
      updatedAt: timestamptz("updated_at").notNull(),
    },
    (t) => [
      primaryKey({ name: `${ns}sessions_pkey`, columns: [t.id] }),
      foreignKey({ name: `${ns}sessions_user_id_fkey`, columns: [t.userId], foreignColumns: [users.id] }).onDelete(
        "cascade",
      ),
      index(`${ns}sessions_user_id_idx`).on(t.userId),
    ],
  );
}

export type SessionsTable = ReturnType<typeof sessionsTable>;
