import type { Metadata } from "./metadata.ts";

/**
 * An OAuth 2.0 or OpenID Connect provider an admin added at run time (/admin/custom-providers), as GoTrue's
 * `custom_oauth_providers`: reached at /authorize?provider=<identifier>, its identities stored under the identifier.
 */
export interface CustomProvider {
  readonly id: string;
  readonly providerType: CustomProviderType;
  /** `custom:<name>`: cannot be a built-in provider's name. Unique. */
  readonly identifier: string;
  /** What an app shows. */
  readonly name: string;
  readonly clientId: string;
  /** The client secret, sealed with the key of what is stored (Secrets.seal); never returned. */
  readonly sealedClientSecret: string;
  /** Further client ids id_tokens may be issued to (apps of other platforms). */
  readonly acceptableClientIds: readonly string[];
  /** Asked for at the authorization endpoint; an OIDC provider's always include `openid`. */
  readonly scopes: readonly string[];
  /** PKCE towards the provider (S256). */
  readonly pkceEnabled: boolean;
  /** How the provider's claims (userinfo, id_token) become GoTrue's: GoTrue's `attribute_mapping`. */
  readonly attributeMapping: Metadata;
  /** The provider's claims kept under `custom_claims`; none when empty. */
  readonly customClaimsAllowlist: readonly string[];
  /** Fixed parameters of the authorization URL. */
  readonly authorizationParams: Readonly<Record<string, string>>;
  readonly enabled: boolean;
  /** A sign-in may go on when the provider reports no email. */
  readonly emailOptional: boolean;
  /** OIDC: the issuer, its discovery document's URL when not the issuer's well-known one, and the last document. */
  readonly issuer: string | null;
  readonly discoveryUrl: string | null;
  readonly skipNonceCheck: boolean;
  readonly discovery: OidcDiscovery | null;
  readonly discoveryCachedAt: Date | null;
  /** OAuth 2.0: the endpoints, given by the admin. */
  readonly authorizationUrl: string | null;
  readonly tokenUrl: string | null;
  readonly userinfoUrl: string | null;
  readonly jwksUri: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export const CUSTOM_PROVIDER_TYPES = ["oauth2", "oidc"] as const;
export type CustomProviderType = (typeof CUSTOM_PROVIDER_TYPES)[number];

/** The prefix every custom provider's identifier has, so that none can be a built-in provider's name. */
export const CUSTOM_PROVIDER_PREFIX = "custom:";

/** An OpenID provider's discovery document, as much of it as the sign-in uses (GoTrue's OIDCDiscovery). */
export interface OidcDiscovery {
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly userinfoEndpoint: string | null;
  readonly jwksUri: string;
  readonly scopesSupported: readonly string[] | null;
  readonly responseTypesSupported: readonly string[] | null;
  readonly grantTypesSupported: readonly string[] | null;
  readonly subjectTypesSupported: readonly string[] | null;
}
