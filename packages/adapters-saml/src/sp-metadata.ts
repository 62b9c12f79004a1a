import { SignedXml } from "xml-crypto";
import { escapeXml, pemBody } from "./pem.ts";
import type { SamlServiceProviderKey } from "./service-provider-key.ts";

const EXC_C14N = "http://www.w3.org/2001/10/xml-exc-c14n#";
const ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";
const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
const SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256";

export interface SpMetadataInput {
  readonly entityId: string;
  readonly acsUrl: string;
  readonly key: SamlServiceProviderKey;
  readonly nextKey: SamlServiceProviderKey | null;
  readonly allowEncryptedAssertions: boolean;
  readonly validUntil: Date | null;
  readonly cacheDurationSeconds: number | null;
}

const ID = "_latchkey-sp-metadata";

/**
 * Our EntityDescriptor, signed with our key. Written here rather than with node-saml's
 * generateServiceProviderMetadata, which has no validUntil or cacheDuration and always sets AuthnRequestsSigned
 * (GoTrue leaves it out). The ID is fixed: the document is the same for the same settings.
 */
export function spMetadata(input: SpMetadataInput): string {
  const certificates = [input.key, ...(input.nextKey ? [input.nextKey] : [])].map((key) => pemBody(key.certificatePem));
  const keyDescriptors = (["signing", "encryption"] as const)
    .filter((use) => use === "signing" || input.allowEncryptedAssertions)
    .flatMap((use) => certificates.map((certificate) => keyDescriptor(use, certificate)));
  const limits = [
    input.validUntil ? ` validUntil="${input.validUntil.toISOString()}"` : "",
    input.cacheDurationSeconds !== null
      ? ` cacheDuration="PT${Math.max(0, Math.floor(input.cacheDurationSeconds))}S"`
      : "",
  ].join("");
  const xml =
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" ID="${ID}" entityID="${escapeXml(input.entityId)}"${limits}>` +
    `<md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" WantAssertionsSigned="true">` +
    keyDescriptors.join("") +
    "<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>" +
    "<md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>" +
    `<md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${escapeXml(input.acsUrl)}" index="0"/>` +
    "</md:SPSSODescriptor></md:EntityDescriptor>";
  return signEnveloped(xml, { id: ID, key: input.key, after: null });
}

function keyDescriptor(use: "signing" | "encryption", certificate: string): string {
  return (
    `<md:KeyDescriptor use="${use}"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data>` +
    `<ds:X509Certificate>${certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`
  );
}

/**
 * `xml` with an enveloped signature of the element whose ID is `id` (exclusive c14n, RSA-SHA256, SHA-256 digest),
 * placed as that element's first child, or right after its child `after` (a SAML Issuer, where the schema wants
 * it). The KeyInfo carries the certificate.
 */
export function signEnveloped(
  xml: string,
  options: { readonly id: string; readonly key: SamlServiceProviderKey; readonly after: string | null },
): string {
  const signer = new SignedXml({
    privateKey: options.key.privateKeyPem,
    publicCert: options.key.certificatePem,
    canonicalizationAlgorithm: EXC_C14N,
    signatureAlgorithm: RSA_SHA256,
  });
  const element = `//*[@ID='${options.id}']`;
  signer.addReference({ xpath: element, transforms: [ENVELOPED, EXC_C14N], digestAlgorithm: SHA256 });
  signer.computeSignature(xml, {
    prefix: "ds",
    location: options.after
      ? { reference: `${element}/*[local-name()='${options.after}']`, action: "after" }
      : { reference: element, action: "prepend" },
  });
  return signer.getSignedXml();
}
