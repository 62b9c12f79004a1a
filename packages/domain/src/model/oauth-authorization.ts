/**
 * One authorization request of a third-party client (GoTrue's `oauth_authorizations`): made at GET /oauth/authorize,
 * bound to the signed-in user when the app's consent page first reads it, approved or denied there, and then
 * exchanged, once, for tokens at POST /oauth/token. Expires AUTHORIZATION_TTL after it was made.
 */
export interface OAuthAuthorization {
  /** The opaque id the consent page is given (GoTrue's `authorization_id`): 32 random characters. */
  readonly id: string;
  readonly clientId: string;
  /** Null until the consent page reads it for a signed-in user; then only that user may answer it. */
  readonly userId: string | null;
  /** One of the client's redirect URIs, exactly. */
  readonly redirectUri: string;
  /** The scopes asked for, space-separated (GoTrue keeps the string). */
  readonly scope: string;
  readonly state: string | null;
  /** RFC 8707's resource indicator, when the client named one. */
  readonly resource: string | null;
  /** PKCE, S256 only (OAuth 2.1). */
  readonly codeChallenge: string;
  /** OIDC's nonce, echoed in the id_token. */
  readonly nonce: string | null;
  readonly status: OAuthAuthorizationStatus;
  /** The digest of the code an approval hands out; the code itself is never stored. */
  readonly codeDigest: string | null;
  /**
   * The session the code was exchanged for: kept so that the code presented again ends it (RFC 6749 4.1.2), until
   * the request expires and is forgotten.
   */
  readonly sessionId: string | null;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly approvedAt: Date | null;
}

export type OAuthAuthorizationStatus = "pending" | "approved" | "denied" | "expired" | "exchanged";

/**
 * What a user allowed a client, remembered so that the next authorization asking for no more skips the consent page
 * (GoTrue's `oauth_consents`); revoked at DELETE /user/oauth/grants, which also ends the client's sessions.
 */
export interface OAuthConsent {
  readonly id: string;
  readonly userId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly grantedAt: Date;
  readonly revokedAt: Date | null;
}

/** The scopes a client may ask for (GoTrue's): OpenID Connect's, and offline_access. */
export const OAUTH_SCOPES = ["openid", "profile", "email", "phone", "offline_access"] as const;

/** A space-separated scope string as a list, empty entries dropped. */
export function scopesOf(scope: string): string[] {
  return scope.split(" ").filter((each) => each !== "");
}
