import type { SamlAssertion, SamlIdpMetadata, SamlNameIdFormat } from "../model/sso-provider.ts";

/** Reads identity providers' SAML metadata: from XML an admin gave, or from a URL. */
export interface SamlMetadataReader {
  /**
   * The parts of `xml` the sign-in uses. Throws AuthError `validation_failed`, with GoTrue's messages where it has
   * them, for XML that is not UTF-8, not well-formed, declares a DTD, or names no EntityID or not exactly one
   * IDPSSODescriptor.
   */
  parse(xml: string): SamlIdpMetadata;
  /**
   * The metadata document at `url`, as text, within a deadline and a size cap. Throws AuthError
   * `saml_metadata_fetch_failed` when it cannot, saying why (the status, the deadline, the cap, the connection).
   */
  fetch(url: string): Promise<string>;
}

/**
 * Latchkey as a SAML 2.0 service provider: its metadata, its AuthnRequests, and the check of what identity providers
 * answer. One key pair (SAML_PRIVATE_KEY, and SAML_PRIVATE_KEY_NEXT while it rotates in) and one base URL, fixed at
 * start.
 */
export interface SamlServiceProvider {
  /** Our EntityID: `<base>/sso/saml/metadata`. */
  readonly entityId: string;
  /** Where identity providers post their answers (HTTP-POST binding): `<base>/sso/saml/acs`. */
  readonly acsUrl: string;
  /** Whether a next key is published beside the current one (SAML_PRIVATE_KEY_NEXT): the key is being rotated. */
  readonly rotating: boolean;
  /**
   * Our metadata document, signed with our key: the ACS, the signing certificate (and the next one while it rotates
   * in), the encryption certificate only when encrypted assertions are allowed, persistent and emailAddress NameID
   * formats; `validUntil` and `cacheDurationSeconds` on the EntityDescriptor when given.
   */
  metadata(options: {
    readonly validUntil: Date | null;
    readonly cacheDurationSeconds: number | null;
  }): Promise<string>;
  /**
   * A signed AuthnRequest for `idp`, HTTP-Redirect binding, the answer asked with the HTTP-POST binding at our ACS:
   * the URL to send the browser to (its query carries `relayState`) and the request's ID. Throws AuthError
   * `validation_failed` when the IdP has no HTTP-Redirect SSO endpoint.
   */
  authnRequest(input: {
    readonly idp: SamlIdpMetadata;
    readonly relayState: string;
    readonly nameIdFormat: SamlNameIdFormat;
  }): Promise<{ readonly url: string; readonly requestId: string }>;
  /**
   * The Issuer of a `SAMLResponse` (base64 form field), not verified: which provider an IdP-initiated answer claims
   * to come from. Throws AuthError `validation_failed` ("SAMLResponse is not a valid Base64 string", "SAMLResponse is
   * not a valid XML SAML assertion") for what is no SAML response.
   */
  peekIssuer(samlResponse: string): string | null;
  /**
   * The assertion of `samlResponse`, once everything about it holds: signed (the assertion, or the response around
   * it) by one of `idp`'s certificates, the signature's reference being the element read; no DTD; Status Success;
   * Issuer `idp.entityId`; Destination (when present) and the bearer confirmation's Recipient our ACS; Audience our
   * EntityID; within its NotBefore / NotOnOrAfter with a small skew; `InResponseTo` equal to `inResponseTo`, or
   * absent everywhere when that is null (IdP-initiated). Encrypted assertions are decrypted when allowed. Throws
   * AuthError `validation_failed` "SAML Assertion is not valid", the reason in its cause, for anything else.
   */
  readAssertion(input: {
    readonly idp: SamlIdpMetadata;
    readonly samlResponse: string;
    readonly inResponseTo: string | null;
  }): Promise<SamlAssertion>;
}
