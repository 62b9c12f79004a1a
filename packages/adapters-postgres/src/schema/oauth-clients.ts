import type { OAuthClient } from "@latchkey/domain";
import { sql } from "drizzle-orm";
import { check, index, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/**
 * `<ns>oauth_clients`: the OAuth server's clients (Supabase Auth's table; see 0015_oauth_clients.ts for where it
 * departs from it). Deleted ones are kept, with their deletion time.
 */
export function oauthClientsTable(ns: string) {
  return pgTable(
    `${ns}oauth_clients`,
    {
      id: uuid("id").notNull(),
      clientSecretHash: text("client_secret_hash"),
      registrationType: text("registration_type").$type<OAuthClient["registrationType"]>().notNull(),
      clientType: text("client_type").$type<OAuthClient["clientType"]>().notNull(),
      tokenEndpointAuthMethod: text("token_endpoint_auth_method")
        .$type<OAuthClient["tokenEndpointAuthMethod"]>()
        .notNull(),
      redirectUris: text("redirect_uris").array().notNull(),
      grantTypes: text("grant_types").array().$type<OAuthClient["grantTypes"][number][]>().notNull(),
      clientName: text("client_name"),
      clientUri: text("client_uri"),
      logoUri: text("logo_uri"),
      createdAt: timestamptz("created_at").notNull(),
      updatedAt: timestamptz("updated_at").notNull(),
      deletedAt: timestamptz("deleted_at"),
    },
    (t) => [
      primaryKey({ name: `${ns}oauth_clients_pkey`, columns: [t.id] }),
      check(`${ns}oauth_clients_registration_check`, sql`${t.registrationType} in ('dynamic', 'manual')`),
      check(`${ns}oauth_clients_client_type_check`, sql`${t.clientType} in ('public', 'confidential')`),
      check(
        `${ns}oauth_clients_auth_method_check`,
        sql`${t.tokenEndpointAuthMethod} in ('none', 'client_secret_basic', 'client_secret_post')`,
      ),
      // GoTrue's bounds, so that a client registering itself cannot store what it likes.
      check(`${ns}oauth_clients_client_name_length`, sql`char_length(${t.clientName}) <= 1024`),
      check(`${ns}oauth_clients_client_uri_length`, sql`char_length(${t.clientUri}) <= 2048`),
      check(`${ns}oauth_clients_logo_uri_length`, sql`char_length(${t.logoUri}) <= 2048`),
      // The list, in its order, of the clients not deleted.
      index(`${ns}oauth_clients_created_at_idx`).on(t.createdAt.desc(), t.id.desc()).where(sql`${t.deletedAt} is null`),
    ],
  );
}

export type OAuthClientsTable = ReturnType<typeof oauthClientsTable>;
