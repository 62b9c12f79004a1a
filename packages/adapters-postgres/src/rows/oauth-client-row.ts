import type { OAuthClient } from "@latchkey/domain";
import type { OAuthClientsTable } from "../schema/oauth-clients.ts";

export type OAuthClientRow = OAuthClientsTable["$inferSelect"];

/** The client's columns (Supabase Auth's names); its secret's digest is GoTrue's `client_secret_hash`. */
export function toOAuthClientRow(client: OAuthClient): OAuthClientRow {
  return {
    id: client.id,
    clientSecretHash: client.secretDigest,
    registrationType: client.registrationType,
    clientType: client.clientType,
    tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
    redirectUris: [...client.redirectUris],
    grantTypes: [...client.grantTypes],
    clientName: client.name,
    clientUri: client.uri,
    logoUri: client.logoUri,
    createdAt: client.createdAt,
    updatedAt: client.updatedAt,
    deletedAt: client.deletedAt,
  };
}

/** The domain's OAuthClient from its row. */
export function fromOAuthClientRow(row: OAuthClientRow): OAuthClient {
  return {
    id: row.id,
    registrationType: row.registrationType,
    clientType: row.clientType,
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod,
    secretDigest: row.clientSecretHash,
    redirectUris: row.redirectUris,
    grantTypes: row.grantTypes,
    name: row.clientName,
    uri: row.clientUri,
    logoUri: row.logoUri,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    deletedAt: row.deletedAt,
  };
}
