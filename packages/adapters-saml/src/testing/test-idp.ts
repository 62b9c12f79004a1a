import { generateKeyPairSync, verify } from "node:crypto";
import { inflateRawSync } from "node:zlib";
import { DOMParser } from "@xmldom/xmldom";
import { escapeXml, pemBody } from "../pem.ts";
import { type SamlServiceProviderKey, samlServiceProviderKey } from "../service-provider-key.ts";
import { attribute, firstChildNamed, SAML, SAMLP } from "../strict-xml.ts";
import { type TestResponseOptions, testResponse } from "./test-response.ts";

export type { TestResponseOptions } from "./test-response.ts";

export interface TestIdpOptions {
  readonly entityId: string;
  readonly ssoUrl: string;
  /** The service provider answers go to, for the defaults of `response`. */
  readonly sp?: { readonly entityId: string; readonly acsUrl: string };
}

/** What an AuthnRequest sent with the HTTP-Redirect binding says, as the IdP reads it. */
export interface ReadAuthnRequest {
  readonly id: string | null;
  readonly issuer: string | null;
  readonly acsUrl: string | null;
  readonly nameIdFormat: string | null;
  readonly relayState: string | null;
  readonly destination: string | null;
  readonly sigAlg: string | null;
  /** The signature over the query as received (`SAMLRequest=…&RelayState=…&SigAlg=…`), with the SP's certificate. */
  readonly signatureValid: boolean;
}

export interface TestIdp {
  readonly entityId: string;
  readonly metadataXml: string;
  /** Base64 DER, as metadata carries it. */
  readonly certificate: string;
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  readAuthnRequest(url: string, spCertificatePem: string): ReadAuthnRequest;
  /** A base64 SAMLResponse (HTTP-POST binding), signed as `options.sign` says (the assertion by default). */
  response(options?: TestResponseOptions): string;
}

const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";

/**
 * A stand-in SAML identity provider for tests: its own RSA-2048 key and self-signed certificate, its metadata, and
 * answers built and signed here (xml-crypto), good ones and the forged kinds a service provider must refuse.
 */
export async function createTestIdp(options: TestIdpOptions): Promise<TestIdp> {
  const key = await newKey(options.entityId);
  const sp = options.sp ?? { entityId: "https://sp.test/sso/saml/metadata", acsUrl: "https://sp.test/sso/saml/acs" };
  const certificate = pemBody(key.certificatePem);
  return {
    entityId: options.entityId,
    metadataXml: idpMetadata(options, certificate),
    certificate,
    certificatePem: key.certificatePem,
    privateKeyPem: key.privateKeyPem,
    readAuthnRequest,
    response: (responseOptions = {}) => testResponse({ idpEntityId: options.entityId, key, sp }, responseOptions),
  };
}

async function newKey(entityId: string): Promise<SamlServiceProviderKey> {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const privateKeyBase64 = privateKey.export({ format: "der", type: "pkcs1" }).toString("base64");
  const host = URL.canParse(entityId) ? new URL(entityId).host || "idp.test" : "idp.test";
  return samlServiceProviderKey({ privateKeyBase64, host, allowEncryptedAssertions: false });
}

function idpMetadata(options: TestIdpOptions, certificate: string): string {
  const sso = (binding: string) =>
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:${binding}" Location="${escapeXml(options.ssoUrl)}"/>`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${escapeXml(options.entityId)}">` +
    `<md:IDPSSODescriptor WantAuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
    `<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data>` +
    `<ds:X509Certificate>${certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
    "<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>" +
    "<md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>" +
    sso("HTTP-Redirect") +
    sso("HTTP-POST") +
    "</md:IDPSSODescriptor></md:EntityDescriptor>"
  );
}

/** The request in `url`, its signature checked over the raw query parameters as they came, as IdPs check it. */
function readAuthnRequest(url: string, spCertificatePem: string): ReadAuthnRequest {
  // From the text itself: URL would encode the query again (a `'`, for one), and the signature is over the bytes.
  const query = url.includes("?") ? url.slice(url.indexOf("?") + 1).split("#")[0]! : "";
  const raw = new Map(query.split("&").map((pair) => [decodeURIComponent(pair.split("=")[0] ?? ""), pair] as const));
  const params = new URL(url).searchParams;
  const request = params.get("SAMLRequest");
  if (request === null) throw new Error("the URL carries no SAMLRequest");
  const xml = inflateRawSync(Buffer.from(request, "base64")).toString("utf8");
  const root = new DOMParser().parseFromString(xml, "application/xml").documentElement!;
  if (root.namespaceURI !== SAMLP || root.localName !== "AuthnRequest") throw new Error("no samlp:AuthnRequest");
  const policy = firstChildNamed(root, SAMLP, "NameIDPolicy");
  const signed = ["SAMLRequest", "RelayState", "SigAlg"].flatMap((name) => raw.get(name) ?? []).join("&");
  const signature = params.get("Signature");
  return {
    id: attribute(root, "ID"),
    issuer: firstChildNamed(root, SAML, "Issuer")?.textContent ?? null,
    acsUrl: attribute(root, "AssertionConsumerServiceURL"),
    nameIdFormat: policy ? attribute(policy, "Format") : null,
    relayState: params.get("RelayState"),
    destination: attribute(root, "Destination"),
    sigAlg: params.get("SigAlg"),
    signatureValid:
      signature !== null &&
      params.get("SigAlg") === RSA_SHA256 &&
      verify("sha256", Buffer.from(signed), spCertificatePem, Buffer.from(signature, "base64")),
  };
}
