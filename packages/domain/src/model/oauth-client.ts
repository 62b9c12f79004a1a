/**
 * A third-party application that signs its users in through Latchkey acting as an OAuth 2.1 authorization server
 * (GoTrue's `oauth_clients`): registered by an admin (`manual`) or by itself (`dynamic`, RFC 7591).
 */
export interface OAuthClient {
  /** The `client_id`: a uuid. */
  readonly id: string;
  readonly registrationType: "dynamic" | "manual";
  /** Public clients (a browser app, a CLI, an MCP client) hold no secret and prove themselves with PKCE alone. */
  readonly clientType: OAuthClientType;
  readonly tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /**
   * A confidential client's secret as its unkeyed SHA-256 (base64url), as GoTrue stores it, so clients brought from
   * it keep their secrets; the secret is 256 random bits, which no digest makes guessable. Null for public clients.
   */
  readonly secretDigest: string | null;
  /** Exact-match redirect URIs, at most MAX_REDIRECT_URIS. */
  readonly redirectUris: readonly string[];
  readonly grantTypes: readonly OAuthGrantType[];
  readonly name: string | null;
  readonly uri: string | null;
  readonly logoUri: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Deleted clients are kept, soft-deleted as in GoTrue: they authorize nothing and are found by no one. */
  readonly deletedAt: Date | null;
}

export type OAuthClientType = "public" | "confidential";
export type TokenEndpointAuthMethod = "none" | "client_secret_basic" | "client_secret_post";
export type OAuthGrantType = "authorization_code" | "refresh_token";

export const TOKEN_ENDPOINT_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = [
  "none",
  "client_secret_basic",
  "client_secret_post",
];
export const OAUTH_GRANT_TYPES: readonly OAuthGrantType[] = ["authorization_code", "refresh_token"];

/** The client type an authentication method implies: none is public, a secret confidential (GoTrue's rule). */
export function clientTypeOf(method: TokenEndpointAuthMethod): OAuthClientType {
  return method === "none" ? "public" : "confidential";
}
