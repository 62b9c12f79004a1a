import type { CodeChallengeMethod } from "./one-time-token.ts";

/**
 * An enterprise identity provider that signs users in through SAML 2.0, with Latchkey as the service provider
 * (GoTrue's `sso_providers`, `saml_providers` and `sso_domains`, kept here as one record): added, changed and
 * removed by an admin (/admin/sso/providers), and picked at sign-in by its id or by the domain of an address.
 */
export interface SsoProvider {
  readonly id: string;
  /** An admin's own name for it, unique without regard to case; `resource_<id>` reaches it in admin paths. */
  readonly resourceId: string | null;
  /** Null when never set: GoTrue reports it so. A disabled provider signs no one in. */
  readonly disabled: boolean | null;
  readonly saml: SamlProviderSettings;
  /** Email domains whose users it signs in, each held by one provider only (without regard to case). */
  readonly domains: readonly string[];
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface SamlProviderSettings {
  /** The IdP's EntityID, from its metadata: unique across providers. */
  readonly entityId: string;
  /** The metadata as given or fetched, byte for byte. */
  readonly metadataXml: string;
  /** Where the metadata was fetched from, and is fetched again from when it goes stale. */
  readonly metadataUrl: string | null;
  readonly attributeMapping: SamlAttributeMapping;
  /** The NameID format asked for in AuthnRequests; null for GoTrue's default (persistent). */
  readonly nameIdFormat: SamlNameIdFormat | null;
}

/** Which assertion attributes become which of the user's claims (GoTrue's `attribute_mapping`). */
export interface SamlAttributeMapping {
  readonly keys?: Readonly<Record<string, SamlAttributeRule>>;
}

export interface SamlAttributeRule {
  /** The attribute's Name or FriendlyName, compared without regard to case; `names` are tried after it, in order. */
  readonly name?: string;
  readonly names?: readonly string[];
  /** The claim's value when no attribute named has one: any JSON value. */
  readonly default?: unknown;
  /** Every non-empty value of the attribute, rather than the first. */
  readonly array?: boolean;
}

export const SAML_NAME_ID_FORMATS = [
  "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
  "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
  "urn:oasis:names:tc:SAML:2.0:nameid-format:transient",
  "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified",
] as const;

export type SamlNameIdFormat = (typeof SAML_NAME_ID_FORMATS)[number];

/** An identity provider's metadata, as much of it as the sign-in uses. */
export interface SamlIdpMetadata {
  readonly entityId: string;
  /** Where AuthnRequests go, with the HTTP-Redirect binding; null when the IdP offers none. */
  readonly ssoRedirectUrl: string | null;
  /** The certificates the IdP signs with (base64 DER): KeyDescriptors for signing, or for any use. */
  readonly signingCertificates: readonly string[];
  /** The metadata's own limits on how long it may be relied on, when it states them. */
  readonly validUntil: Date | null;
  readonly cacheDurationSeconds: number | null;
}

/**
 * A sign-in sent to an identity provider (POST /sso), waiting for its answer at the ACS: its id is the RelayState
 * the IdP hands back, and it is taken once, whatever happens next (GoTrue's `saml_relay_states`).
 */
export interface SamlRelayState {
  readonly id: string;
  readonly ssoProviderId: string;
  /** The AuthnRequest's ID: the answer's `InResponseTo` must be it. */
  readonly requestId: string;
  /** Where the browser goes at the end: `redirect_to` as the redirect rule allowed it, or SITE_URL. */
  readonly redirectTo: string;
  /** Set when the client started a PKCE flow: the ACS then leads to a code, not a session. */
  readonly codeChallenge: string | null;
  readonly codeChallengeMethod: CodeChallengeMethod | null;
  readonly createdAt: Date;
}

/** An attribute of a SAML assertion, with every value it carries (text, in order). */
export interface SamlAttribute {
  readonly name: string;
  readonly friendlyName: string | null;
  readonly values: readonly string[];
}

/** What a verified SAML assertion says, as much as the sign-in uses. */
export interface SamlAssertion {
  /** The Assertion's ID: remembered until `expiresAt`, so that it signs no one in twice. */
  readonly id: string;
  /** The IdP that issued it: the provider's EntityID. */
  readonly issuer: string;
  readonly nameId: string | null;
  readonly nameIdFormat: string | null;
  readonly attributes: readonly SamlAttribute[];
  /** The last moment the assertion could be accepted: its conditions' and its bearer confirmation's end. */
  readonly expiresAt: Date;
  /** AuthnStatement's SessionNotOnOrAfter: the IdP's end for the session it starts. */
  readonly sessionNotOnOrAfter: Date | null;
}
