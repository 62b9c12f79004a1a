import { DOMParser, type Document, type Element } from "@xmldom/xmldom";

export const SAMLP = "urn:oasis:names:tc:SAML:2.0:protocol";
export const SAML = "urn:oasis:names:tc:SAML:2.0:assertion";

/**
 * `xml` as a DOM, or an Error saying why not. A document type declaration is refused, before xmldom sees it and in
 * the DOM after: SAML needs none, and a DTD is how entities come in (XXE, billion laughs). Whatever xmldom reports
 * stops it, the warnings included, as it would otherwise recover from XML that is not well-formed.
 */
export function parseStrictXml(xml: string): Document {
  if (/<!DOCTYPE/i.test(xml)) throw new Error("the XML has a document type declaration (DOCTYPE)");
  let problem: string | undefined;
  const parser = new DOMParser({
    onError: (_level, message) => {
      problem ??= message;
      throw new Error(message);
    },
  });
  let document: Document;
  try {
    document = parser.parseFromString(xml.replace(/^\uFEFF/, ""), "application/xml");
  } catch (error) {
    throw new Error(`the XML is not well-formed: ${problem ?? String(error)}`, { cause: error });
  }
  if (document.doctype !== null && document.doctype !== undefined) {
    throw new Error("the XML has a document type declaration (DOCTYPE)");
  }
  if (!document.documentElement) throw new Error("the XML has no root element");
  return document;
}

function elementChildren(parent: Element): Element[] {
  return Array.from(parent.childNodes).filter((node): node is Element => node.nodeType === 1);
}

/** The child elements of `parent` named `localName` in `namespace`. */
export function childrenNamed(parent: Element, namespace: string, localName: string): Element[] {
  return elementChildren(parent).filter((child) => child.namespaceURI === namespace && child.localName === localName);
}

export const firstChildNamed = (parent: Element, namespace: string, localName: string): Element | undefined =>
  childrenNamed(parent, namespace, localName)[0];

/** Every element of the document named `localName`, in any namespace or none: how node-saml looks for them. */
export const everywhereNamed = (document: Document | Element, localName: string): Element[] =>
  Array.from(document.getElementsByTagNameNS("*", localName));

/** An attribute's value, null when absent (xmldom answers "" or null depending on the version). */
export const attribute = (element: Element, name: string): string | null =>
  element.hasAttribute(name) ? element.getAttribute(name) : null;
