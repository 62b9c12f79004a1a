import { AuthError } from "../errors.ts";
import type { SamlIdpMetadata } from "../model/sso-provider.ts";
import type { SamlMetadataReader } from "../ports/saml.ts";

/**
 * Metadata readers for tests of the use cases: it takes the EntityID from the document's `entityID="…"` (the real
 * parser is adapters-saml's, tested there), and fetches what `served` holds for a URL, else fails as a 404 would.
 */
export class FakeSamlMetadata implements SamlMetadataReader {
  readonly served = new Map<string, string>();
  readonly fetched: string[] = [];

  parse(xml: string): SamlIdpMetadata {
    const entityId = /entityID="([^"]+)"/.exec(xml)?.[1];
    if (entityId === undefined) throw new AuthError("validation_failed", "SAML Metadata does not contain an EntityID");
    const validUntil = /validUntil="([^"]+)"/.exec(xml)?.[1];
    return {
      entityId,
      ssoRedirectUrl: `https://${new URL(entityId).host}/sso`,
      signingCertificates: [],
      validUntil: validUntil === undefined ? null : new Date(validUntil),
      cacheDurationSeconds: null,
    };
  }

  async fetch(url: string): Promise<string> {
    this.fetched.push(url);
    const xml = this.served.get(url);
    if (xml === undefined) {
      throw new AuthError("saml_metadata_fetch_failed", `HTTP 404 error fetching SAML Metadata from URL '${url}'`);
    }
    return xml;
  }
}

/** Metadata naming `entityId` (valid until `validUntil` when given), as much as FakeSamlMetadata reads. */
export const idpMetadataXml = (entityId: string, validUntil?: Date) =>
  `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}"${
    validUntil ? ` validUntil="${validUntil.toISOString()}"` : ""
  }><IDPSSODescriptor/></EntityDescriptor>`;
