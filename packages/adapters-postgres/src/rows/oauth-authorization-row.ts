import type { OAuthAuthorization } from "@latchkey/domain";
import type { OAuthAuthorizationsTable } from "../schema/oauth-authorizations.ts";

export type OAuthAuthorizationRow = OAuthAuthorizationsTable["$inferSelect"];

/** The request's columns (Supabase Auth's names); its PKCE method is S256, the only one there is. */
export function toOAuthAuthorizationRow(authorization: OAuthAuthorization): OAuthAuthorizationRow {
  return {
    id: authorization.id,
    clientId: authorization.clientId,
    userId: authorization.userId,
    redirectUri: authorization.redirectUri,
    scope: authorization.scope,
    state: authorization.state,
    resource: authorization.resource,
    codeChallenge: authorization.codeChallenge,
    codeChallengeMethod: "s256",
    nonce: authorization.nonce,
    status: authorization.status,
    codeDigest: authorization.codeDigest,
    sessionId: authorization.sessionId,
    createdAt: authorization.createdAt,
    expiresAt: authorization.expiresAt,
    approvedAt: authorization.approvedAt,
  };
}

/** The domain's OAuthAuthorization from its row. */
export function fromOAuthAuthorizationRow(row: OAuthAuthorizationRow): OAuthAuthorization {
  return {
    id: row.id,
    clientId: row.clientId,
    userId: row.userId,
    redirectUri: row.redirectUri,
    scope: row.scope,
    state: row.state,
    resource: row.resource,
    codeChallenge: row.codeChallenge,
    nonce: row.nonce,
    status: row.status,
    codeDigest: row.codeDigest,
    sessionId: row.sessionId,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    approvedAt: row.approvedAt,
  };
}
