import { randomBytes } from "node:crypto";
import { escapeXml } from "../pem.ts";
import type { SamlServiceProviderKey } from "../service-provider-key.ts";
import { signEnveloped } from "../sp-metadata.ts";
import { encryptedAssertion } from "./test-encryption.ts";

/** An attribute's values, or its values with a FriendlyName. */
type TestAttribute = string | string[] | { readonly values: string | string[]; readonly friendlyName: string };

export interface TestResponseOptions {
  readonly acsUrl?: string;
  readonly audience?: string;
  /** The request answered; null (the default) for an IdP-initiated answer. */
  readonly inResponseTo?: string | null;
  readonly nameId?: string;
  readonly nameIdFormat?: string;
  readonly attributes?: Readonly<Record<string, TestAttribute>>;
  readonly sessionNotOnOrAfter?: Date | null;
  /** The Conditions' limits and the bearer confirmation's end: a minute ago and in five minutes by default. */
  readonly notBefore?: Date;
  readonly notOnOrAfter?: Date;
  readonly assertionId?: string;
  /** The Issuer of the response and of the assertion; the IdP's EntityID by default. */
  readonly issuer?: string;
  /** The Response's Destination: the ACS by default, null for none. */
  readonly destination?: string | null;
  /** The bearer confirmation's Recipient: the ACS by default. */
  readonly recipient?: string;
  readonly sign?: "assertion" | "response" | "both" | "none";
  /** Sign with this key instead of the IdP's (its certificate still named in KeyInfo). */
  readonly signingKeyPem?: string;
  readonly status?: string;
  /** The NameID written `<nameId><!---->.evil.example`: signed as `<nameId>.evil.example`, as c14n drops comments. */
  readonly nameIdComment?: boolean;
  /**
   * Signature wrapping: the assertion signed for `nameId`, and an unsigned forged copy for `wrappedNameId` put
   * where a careless reader looks first. `sibling`: the forged assertion first, the signed one after it;
   * `nested`: the signed one inside the forged one's Advice; `extensions`: the signed one in the Response's
   * Extensions, the forged one (same ID, the original's Signature copied in) the Response's assertion.
   */
  readonly wrap?: "sibling" | "nested" | "extensions";
  readonly wrappedNameId?: string;
  /** Put in front of the document: a DOCTYPE, with entities, say. */
  readonly doctype?: string;
  /**
   * An SP certificate (PEM): the assertion, signed as `sign` says, is then replaced by a saml:EncryptedAssertion
   * encrypted to it (AES-256-CBC content, RSA-OAEP key transport), before any `wrap`.
   */
  readonly encryptFor?: string;
  /** Put in front of the signed assertion before it is encrypted: a DOCTYPE only the decryption would meet. */
  readonly encryptedPrefix?: string;
}

export interface TestIssuer {
  readonly idpEntityId: string;
  readonly key: SamlServiceProviderKey;
  readonly sp: { readonly entityId: string; readonly acsUrl: string };
}

const NS = 'xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"';
const SUCCESS = "urn:oasis:names:tc:SAML:2.0:status:Success";
const EMAIL = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const MINUTE = 60_000;

const newId = () => `_${randomBytes(20).toString("hex")}`;

/** A SAMLResponse as the HTTP-POST binding carries it (base64), made as `options` say. */
export function testResponse(issuer: TestIssuer, options: TestResponseOptions): string {
  const sign = options.sign ?? "assertion";
  const key = options.signingKeyPem ? { ...issuer.key, privateKeyPem: options.signingKeyPem } : issuer.key;
  const assertionId = options.assertionId ?? newId();
  let assertion = assertionXml(issuer, options, { id: assertionId, nameId: options.nameId ?? "a@corp.example" });
  if (sign === "assertion" || sign === "both")
    assertion = signEnveloped(assertion, { id: assertionId, key, after: "Issuer" });
  if (options.encryptFor) {
    assertion = encryptedAssertion(`${options.encryptedPrefix ?? ""}${assertion}`, options.encryptFor);
  }
  const content = options.wrap ? wrapped(issuer, options, assertion, assertionId) : assertion;
  const responseId = newId();
  let response = responseXml(issuer, options, { id: responseId, content });
  if (sign === "response" || sign === "both")
    response = signEnveloped(response, { id: responseId, key, after: "Issuer" });
  return Buffer.from(`${options.doctype ?? ""}${response}`).toString("base64");
}

/** The Response's content for a wrapping attack around the signed `assertion`. */
function wrapped(issuer: TestIssuer, options: TestResponseOptions, assertion: string, id: string): string {
  const nameId = options.wrappedNameId ?? "attacker@evil.example";
  if (options.wrap === "extensions") {
    const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(assertion)?.[0] ?? "";
    const forged = assertionXml(issuer, options, { id, nameId }).replace(/(<\/saml:Issuer>)/, `$1${signature}`);
    return `<samlp:Extensions>${assertion}</samlp:Extensions>${forged}`;
  }
  const forged = assertionXml(issuer, options, { id: newId(), nameId });
  if (options.wrap === "sibling") return `${forged}${assertion}`;
  return forged.replace("</saml:Subject>", `</saml:Subject><saml:Advice>${assertion}</saml:Advice>`);
}

function responseXml(issuer: TestIssuer, options: TestResponseOptions, parts: { id: string; content: string }): string {
  const destination = options.destination === undefined ? (options.acsUrl ?? issuer.sp.acsUrl) : options.destination;
  const attributes = [
    destination === null ? "" : ` Destination="${escapeXml(destination)}"`,
    options.inResponseTo ? ` InResponseTo="${escapeXml(options.inResponseTo)}"` : "",
  ].join("");
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ${NS} ID="${parts.id}" Version="2.0" IssueInstant="${new Date().toISOString()}"${attributes}>` +
    `<saml:Issuer>${escapeXml(options.issuer ?? issuer.idpEntityId)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${escapeXml(options.status ?? SUCCESS)}"/></samlp:Status>` +
    `${parts.content}</samlp:Response>`
  );
}

function assertionXml(issuer: TestIssuer, options: TestResponseOptions, parts: { id: string; nameId: string }): string {
  const now = Date.now();
  const notBefore = (options.notBefore ?? new Date(now - MINUTE)).toISOString();
  const notOnOrAfter = (options.notOnOrAfter ?? new Date(now + 5 * MINUTE)).toISOString();
  const inResponseTo = options.inResponseTo ? ` InResponseTo="${escapeXml(options.inResponseTo)}"` : "";
  const recipient = escapeXml(options.recipient ?? options.acsUrl ?? issuer.sp.acsUrl);
  const nameId = escapeXml(parts.nameId) + (options.nameIdComment ? "<!---->.evil.example" : "");
  const session = options.sessionNotOnOrAfter
    ? ` SessionNotOnOrAfter="${options.sessionNotOnOrAfter.toISOString()}"`
    : "";
  return (
    `<saml:Assertion ${NS} ID="${parts.id}" Version="2.0" IssueInstant="${new Date(now).toISOString()}">` +
    `<saml:Issuer>${escapeXml(options.issuer ?? issuer.idpEntityId)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${escapeXml(options.nameIdFormat ?? EMAIL)}">${nameId}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml:SubjectConfirmationData${inResponseTo} NotOnOrAfter="${notOnOrAfter}" Recipient="${recipient}"/>` +
    "</saml:SubjectConfirmation></saml:Subject>" +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction>` +
    `<saml:Audience>${escapeXml(options.audience ?? issuer.sp.entityId)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${new Date(now).toISOString()}" SessionIndex="${parts.id}"${session}>` +
    "<saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport" +
    "</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>" +
    attributeStatement(options.attributes ?? {}) +
    "</saml:Assertion>"
  );
}

function attributeStatement(attributes: Readonly<Record<string, TestAttribute>>): string {
  const entries = Object.entries(attributes);
  if (entries.length === 0) return "";
  const one = ([name, attribute]: [string, TestAttribute]) => {
    const { values, friendlyName } =
      typeof attribute === "object" && !Array.isArray(attribute)
        ? attribute
        : { values: attribute, friendlyName: null };
    const friendly = friendlyName === null ? "" : ` FriendlyName="${escapeXml(friendlyName)}"`;
    const valueXml = [values]
      .flat()
      .map((value) => `<saml:AttributeValue>${escapeXml(value)}</saml:AttributeValue>`)
      .join("");
    return `<saml:Attribute Name="${escapeXml(name)}"${friendly} NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${valueXml}</saml:Attribute>`;
  };
  return `<saml:AttributeStatement>${entries.map(one).join("")}</saml:AttributeStatement>`;
}
