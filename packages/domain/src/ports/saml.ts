import type { SamlIdpMetadata } from "../model/sso-provider.ts";

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
