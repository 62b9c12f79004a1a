import type { OAuthAuthorizationStatus } from "@latchkey/domain";
import { sql } from "drizzle-orm";
import { check, foreignKey, index, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { OAuthClientsTable } from "./oauth-clients.ts";
import type { UsersTable } from "./users.ts";

/**
 * `<ns>oauth_authorizations`: third-party clients' authorization requests, until exchanged or expired (Supabase
 * Auth's table; see 0016_oauth_authorizations.ts for where it departs from it). Bound to a user once the consent page
 * reads it, and going with that user. `session_id`, the session an exchanged code opened, is no foreign key: a
 * sign-out need not look here, and a pointer to a session that is gone matches nothing.
 */
export function oauthAuthorizationsTable(ns: string, users: UsersTable, clients: OAuthClientsTable) {
  return pgTable(
    `${ns}oauth_authorizations`,
    {
      id: text("id").notNull(),
      clientId: uuid("client_id").notNull(),
      userId: uuid("user_id"),
      redirectUri: text("redirect_uri").notNull(),
      scope: text("scope").notNull(),
      state: text("state"),
      resource: text("resource"),
      codeChallenge: text("code_challenge").notNull(),
      codeChallengeMethod: text("code_challenge_method").$type<"s256">().notNull(),
      nonce: text("nonce"),
      status: text("status").$type<OAuthAuthorizationStatus>().notNull(),
      codeDigest: text("code_digest"),
      sessionId: uuid("session_id"),
      createdAt: timestamptz("created_at").notNull(),
      expiresAt: timestamptz("expires_at").notNull(),
      approvedAt: timestamptz("approved_at"),
    },
    (t) => [
      primaryKey({ name: `${ns}oauth_authorizations_pkey`, columns: [t.id] }),
      foreignKey({
        name: `${ns}oauth_authorizations_client_id_fkey`,
        columns: [t.clientId],
        foreignColumns: [clients.id],
      }).onDelete("cascade"),
      foreignKey({
        name: `${ns}oauth_authorizations_user_id_fkey`,
        columns: [t.userId],
        foreignColumns: [users.id],
      }).onDelete("cascade"),
      check(`${ns}oauth_authorizations_method_check`, sql`${t.codeChallengeMethod} = 's256'`),
      check(
        `${ns}oauth_authorizations_status_check`,
        sql`${t.status} in ('pending', 'approved', 'denied', 'expired', 'exchanged')`,
      ),
      // A code is found by its digest; only approved (and then exchanged) requests hold one.
      uniqueIndex(`${ns}oauth_authorizations_code_key`).on(t.codeDigest).where(sql`${t.codeDigest} is not null`),
      // Expired ones are removed by time.
      index(`${ns}oauth_authorizations_expires_at_idx`).on(t.expiresAt),
      // So that deleting a user finds its requests without a scan; those not yet bound to one are left out.
      index(`${ns}oauth_authorizations_user_id_idx`).on(t.userId).where(sql`${t.userId} is not null`),
    ],
  );
}

export type OAuthAuthorizationsTable = ReturnType<typeof oauthAuthorizationsTable>;
