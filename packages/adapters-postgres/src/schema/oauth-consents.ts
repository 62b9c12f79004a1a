import { foreignKey, pgTable, primaryKey, text, unique, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { OAuthClientsTable } from "./oauth-clients.ts";
import type { UsersTable } from "./users.ts";

/**
 * `<ns>oauth_consents`: what users allowed clients, one row per user and client (Supabase Auth's table; see
 * 0016_oauth_authorizations.ts for where it departs from it). The unique pair's index serves every read: a user's
 * consents, and the one of a user and client.
 */
export function oauthConsentsTable(ns: string, users: UsersTable, clients: OAuthClientsTable) {
  return pgTable(
    `${ns}oauth_consents`,
    {
      id: uuid("id").notNull(),
      userId: uuid("user_id").notNull(),
      clientId: uuid("client_id").notNull(),
      scopes: text("scopes").array().notNull(),
      grantedAt: timestamptz("granted_at").notNull(),
      revokedAt: timestamptz("revoked_at"),
    },
    (t) => [
      primaryKey({ name: `${ns}oauth_consents_pkey`, columns: [t.id] }),
      foreignKey({
        name: `${ns}oauth_consents_user_id_fkey`,
        columns: [t.userId],
        foreignColumns: [users.id],
      }).onDelete("cascade"),
      foreignKey({
        name: `${ns}oauth_consents_client_id_fkey`,
        columns: [t.clientId],
        foreignColumns: [clients.id],
      }).onDelete("cascade"),
      unique(`${ns}oauth_consents_user_client_key`).on(t.userId, t.clientId),
    ],
  );
}

export type OAuthConsentsTable = ReturnType<typeof oauthConsentsTable>;
