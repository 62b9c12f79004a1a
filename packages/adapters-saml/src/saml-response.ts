import { AuthError } from "@latchkey/domain";
import type { Document } from "@xmldom/xmldom";
import { firstChildNamed, parseStrictXml, SAML, SAMLP } from "./strict-xml.ts";

/** A decoded SAMLResponse larger than this is refused unread: real ones are a few KiB, a few dozen with groups. */
const MAX_SAML_RESPONSE_BYTES = 256 * 1024;

/** Standard alphabet with its padding, as GoTrue's decoder takes it (which also skips line breaks). */
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const NOT_BASE64 = "SAMLResponse is not a valid Base64 string";
const NOT_XML = "SAMLResponse is not a valid XML SAML assertion";

const refused = (message: string, cause: unknown) => new AuthError("validation_failed", message, { cause });

/**
 * The SAMLResponse form field in its one canonical base64 form (line breaks some IdPs wrap it with taken out) and
 * as XML text. Throws AuthError `validation_failed`, NOT_BASE64 or NOT_XML, the precise reason as its cause.
 */
export function decodeSamlResponse(samlResponse: string): { readonly base64: string; readonly xml: string } {
  const base64 = samlResponse.replace(/[\r\n]/g, "");
  if (!STANDARD_BASE64.test(base64)) throw refused(NOT_BASE64, "not standard padded Base64");
  // 4 characters carry 3 bytes: the cap is checked before decoding anything.
  if ((base64.length / 4) * 3 > MAX_SAML_RESPONSE_BYTES + 2) {
    throw refused(NOT_XML, `larger than ${MAX_SAML_RESPONSE_BYTES} bytes`);
  }
  const bytes = Buffer.from(base64, "base64");
  if (bytes.length > MAX_SAML_RESPONSE_BYTES) throw refused(NOT_XML, `larger than ${MAX_SAML_RESPONSE_BYTES} bytes`);
  try {
    return { base64, xml: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch (error) {
    throw refused(NOT_XML, error);
  }
}

/** The response document, its root a samlp:Response; throws AuthError NOT_XML, the reason as its cause. */
export function parseSamlResponse(xml: string): Document {
  let document: Document;
  try {
    document = parseStrictXml(xml);
  } catch (error) {
    throw refused(NOT_XML, error);
  }
  const root = document.documentElement!;
  if (root.namespaceURI !== SAMLP || root.localName !== "Response") {
    throw refused(NOT_XML, `the root element is ${root.nodeName}, not a samlp:Response`);
  }
  return document;
}

/** SamlServiceProvider.peekIssuer: the Response's own Issuer, else its Assertion's; not verified. */
export function peekIssuer(samlResponse: string): string | null {
  const root = parseSamlResponse(decodeSamlResponse(samlResponse).xml).documentElement!;
  const assertion = firstChildNamed(root, SAML, "Assertion");
  const issuer = firstChildNamed(root, SAML, "Issuer") ?? (assertion && firstChildNamed(assertion, SAML, "Issuer"));
  const text = issuer?.textContent?.trim();
  return text ? text : null;
}
