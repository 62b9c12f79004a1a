import { AuthError, type SamlIdpMetadata } from "@latchkey/domain";
import { DOMParser, type Document, type Element } from "@xmldom/xmldom";
import { parseDateTime } from "./xs-date-time.ts";
import { durationSeconds } from "./xs-duration.ts";

const MD = "urn:oasis:names:tc:SAML:2.0:metadata";
const DS = "http://www.w3.org/2000/09/xmldsig#";
const HTTP_REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";

const invalid = (message: string, cause?: unknown) => new AuthError("validation_failed", message, { cause });

/** The parts of an IdP's metadata the sign-in uses; throws AuthError `validation_failed` (SamlMetadataReader). */
export function parseMetadata(xml: string): SamlIdpMetadata {
  // A decoder replaces bytes that are not UTF-8 with U+FFFD; a JavaScript string can also hold lone surrogates.
  if (xml.includes("\uFFFD") || !xml.isWellFormed()) {
    throw invalid("SAML Metadata XML contains invalid UTF-8 characters, which are not supported at this time");
  }
  const entity = idpEntity(rootOf(xml));
  const entityId = entity.getAttribute("entityID") ?? "";
  if (entityId.trim() === "") throw invalid("SAML Metadata does not contain an EntityID");
  const idps = children(entity, "IDPSSODescriptor");
  if (idps.length === 0) throw invalid("SAML Metadata does not contain any IDPSSODescriptor");
  if (idps.length > 1) throw invalid("SAML Metadata contains multiple IDPSSODescriptors");
  const idp = idps[0]!;
  return {
    entityId,
    ssoRedirectUrl: redirectLocation(idp),
    signingCertificates: signingCertificates(idp),
    validUntil: validUntil(entity.getAttribute("validUntil")),
    cacheDurationSeconds: cacheDuration(entity.getAttribute("cacheDuration")),
  };
}

/**
 * A document type declaration is refused outright, before xmldom sees it: metadata needs none, and a DTD is how
 * entities come in (XXE's external ones, billion laughs' nested ones). The DOM is checked again after parsing, for
 * a declaration the scan could miss.
 */
function rootOf(xml: string): Element {
  const doctype = () => invalid("SAML Metadata must not contain a document type declaration (DOCTYPE)");
  if (/<!DOCTYPE/i.test(xml)) throw doctype();
  // xmldom reports some of what is not well-formed as a mere warning, and would recover; a handler that throws
  // stops it, with its own ParseError around what was thrown. The first problem is the one told.
  let problem: string | undefined;
  const parser = new DOMParser({
    onError: (_level, message, context) => {
      problem ??= withPosition(message, context?.locator);
      throw new Error(problem);
    },
  });
  let document: Document;
  try {
    // A byte order mark is no content, though xmldom counts it as such.
    document = parser.parseFromString(xml.replace(/^\uFEFF/, ""), "application/xml");
  } catch (error) {
    throw invalid(`SAML Metadata is not valid XML: ${problem ?? String(error)}`, error);
  }
  if (document.doctype !== null && document.doctype !== undefined) throw doctype();
  if (!document.documentElement) throw invalid("SAML Metadata is not valid XML: it has no root element");
  return document.documentElement;
}

/** xmldom's message, and where it was when it had it (its locator), for whoever fixes the document. */
function withPosition(message: string, locator: { lineNumber?: unknown; columnNumber?: unknown } | undefined): string {
  const { lineNumber: line, columnNumber: column } = locator ?? {};
  return typeof line === "number" && typeof column === "number"
    ? `${message} (line ${line}, column ${column})`
    : message;
}

/** The root EntityDescriptor, or in an EntitiesDescriptor the first (at any depth) that describes an IdP. */
function idpEntity(root: Element): Element {
  if (isMd(root, "EntityDescriptor")) return root;
  if (!isMd(root, "EntitiesDescriptor")) {
    throw invalid(
      `SAML Metadata's root element must be an EntityDescriptor or EntitiesDescriptor (${MD}), not ${root.localName ?? root.nodeName}`,
    );
  }
  const entities = entityDescriptors(root);
  if (entities.length === 0) throw invalid("SAML Metadata's EntitiesDescriptor contains no EntityDescriptor");
  return entities.find((entity) => children(entity, "IDPSSODescriptor").length > 0) ?? entities[0]!;
}

/** The EntityDescriptors of an EntitiesDescriptor and of those nested in it, in document order. */
function entityDescriptors(group: Element): Element[] {
  return elements(group).flatMap((child) => {
    if (isMd(child, "EntityDescriptor")) return [child];
    return isMd(child, "EntitiesDescriptor") ? entityDescriptors(child) : [];
  });
}

function redirectLocation(idp: Element): string | null {
  const service = children(idp, "SingleSignOnService").find((sso) => sso.getAttribute("Binding") === HTTP_REDIRECT);
  const location = service?.getAttribute("Location")?.trim();
  return location ? location : null;
}

/** The X509Certificates of the KeyDescriptors for signing, or for any use (no `use`), without their line breaks. */
function signingCertificates(idp: Element): string[] {
  return children(idp, "KeyDescriptor")
    .filter((key) => !key.hasAttribute("use") || key.getAttribute("use") === "signing")
    .flatMap((key) => Array.from(key.getElementsByTagNameNS(DS, "X509Certificate")))
    .map((certificate) => (certificate.textContent ?? "").replace(/\s+/g, ""))
    .filter((certificate) => certificate !== "");
}

/** Absent, null; present but empty or anything not a date-time, refused. */
function validUntil(text: string | null): Date | null {
  if (text === null) return null;
  const date = parseDateTime(text);
  if (date === null) {
    throw invalid(`SAML Metadata's validUntil is not a valid xs:dateTime: '${text}'`);
  }
  return date;
}

function cacheDuration(text: string | null): number | null {
  if (text === null) return null;
  const seconds = durationSeconds(text);
  if (seconds === null) throw invalid(`SAML Metadata's cacheDuration is not a valid xs:duration: '${text}'`);
  return seconds;
}

const isMd = (element: Element, localName: string) => element.namespaceURI === MD && element.localName === localName;

function elements(parent: Element): Element[] {
  return Array.from(parent.childNodes).filter((node): node is Element => node.nodeType === 1);
}

/** The child elements of `parent` in the metadata namespace named `localName`. */
const children = (parent: Element, localName: string) => elements(parent).filter((child) => isMd(child, localName));
