import type { Aal, AuthMethod } from "@latchkey/domain";
import { sql } from "drizzle-orm";
import { foreignKey, index, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { OAuthClientsTable } from "./oauth-clients.ts";
import type { UsersTable } from "./users.ts";

/** One entry of `sessions.amr`, as stored: the time as an ISO 8601 string. */
export interface AmrJson {
  readonly method: AuthMethod;
  readonly at: string;
}

/**
 * `<ns>sessions`: one row per sign-in. `refresh_token_id` has no foreign key: a session is written before its
 * first token, and a pointer to a token that is gone simply matches nothing. Neither has `factor_id` (GoTrue's
 * has none either): SessionStore.downgradeFactor finds the sessions a factor raised to aal2 by it, and must still
 * find them when the factor was deleted first in the same transaction, which ON DELETE SET NULL would prevent
 * (and CASCADE would sign them out). Factor ids are random uuids, never reused, so a stale pointer names no other factor.
 * A session a third-party client holds names it in `oauth_client_id`, with the scopes granted; the key's ON DELETE
 * CASCADE is GoTrue's, and never fires, as a client is only ever soft-deleted. `factor_id`, then those two, come
 * last: later migrations added them, and ADD COLUMN appends.
 */
export function sessionsTable(ns: string, users: UsersTable, clients: OAuthClientsTable) {
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
      factorId: uuid("factor_id"),
      oauthClientId: uuid("oauth_client_id"),
      scopes: text("scopes"),
    },
    (t) => [
      primaryKey({ name: `${ns}sessions_pkey`, columns: [t.id] }),
      foreignKey({ name: `${ns}sessions_user_id_fkey`, columns: [t.userId], foreignColumns: [users.id] }).onDelete(
        "cascade",
      ),
      foreignKey({
        name: `${ns}sessions_oauth_client_id_fkey`,
        columns: [t.oauthClientId],
        foreignColumns: [clients.id],
      }).onDelete("cascade"),
      index(`${ns}sessions_user_id_idx`).on(t.userId),
      // A client's sessions of a user (SessionStore.deleteOfClient); first-party sessions are left out.
      index(`${ns}sessions_oauth_client_idx`).on(t.userId, t.oauthClientId).where(sql`${t.oauthClientId} is not null`),
      // The clean-up: sessions past their timebox, and ended ones (0017). Never rotated_at, which a refresh writes.
      index(`${ns}sessions_created_at_idx`).on(t.createdAt),
      index(`${ns}sessions_not_after_idx`).on(t.notAfter).where(sql`${t.notAfter} is not null`),
    ],
  );
}

export type SessionsTable = ReturnType<typeof sessionsTable>;
