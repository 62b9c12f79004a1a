import type { SamlAssertion, SamlAttribute } from "@latchkey/domain";
import type { Element } from "@xmldom/xmldom";
import { attribute, childrenNamed, everywhereNamed, firstChildNamed, parseStrictXml, SAML } from "./strict-xml.ts";
import { parseDateTime } from "./xs-date-time.ts";

const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";

export interface AssertionExpectations {
  readonly idpEntityId: string;
  readonly acsUrl: string;
  readonly inResponseTo: string | null;
  readonly now: Date;
  readonly clockSkewMs: number;
}

/** Thrown for an assertion refused here; its message is the reason. */
export class AssertionProblem extends Error {}

/**
 * The assertion node-saml verified the signature of (the XML its signature's reference covers, not the document
 * it came in), read and checked for what node-saml does not check: the Issuer, a bearer confirmation for our ACS
 * that has not ended, and InResponseTo. Every value returned comes from this XML, so an element of the same name
 * elsewhere in the response (signature wrapping) is never read. Text is the whole of an element's text: a comment
 * inside a NameID, which the canonical form drops, cannot cut what is read short of what was signed.
 */
export function readSignedAssertion(signedXml: string, expected: AssertionExpectations): SamlAssertion {
  const assertion = parseStrictXml(signedXml).documentElement!;
  if (assertion.namespaceURI !== SAML || assertion.localName !== "Assertion") {
    throw new AssertionProblem(`the signed element is ${assertion.nodeName}, not a saml:Assertion`);
  }
  const id = attribute(assertion, "ID");
  if (!id) throw new AssertionProblem("the assertion has no ID");
  const issuer = text(firstChildNamed(assertion, SAML, "Issuer"));
  if (issuer !== expected.idpEntityId) {
    throw new AssertionProblem(`the assertion's Issuer is ${issuer ?? "missing"}, not ${expected.idpEntityId}`);
  }
  const subject = firstChildNamed(assertion, SAML, "Subject");
  const nameId = subject && firstChildNamed(subject, SAML, "NameID");
  checkInResponseTo(assertion, expected.inResponseTo);
  const confirmationEnd = bearerConfirmationEnd(subject, expected);
  const conditions = firstChildNamed(assertion, SAML, "Conditions");
  const conditionsEnd = conditions ? instant(conditions, "NotOnOrAfter") : null;
  const authn = firstChildNamed(assertion, SAML, "AuthnStatement");
  return {
    id,
    issuer,
    nameId: text(nameId),
    nameIdFormat: nameId ? attribute(nameId, "Format") : null,
    attributes: attributes(assertion),
    expiresAt: conditionsEnd && conditionsEnd < confirmationEnd ? conditionsEnd : confirmationEnd,
    sessionNotOnOrAfter: authn ? instant(authn, "SessionNotOnOrAfter") : null,
  };
}

/**
 * The end of the bearer SubjectConfirmation meant for our ACS that holds now, allowing the skew: the Recipient
 * ours, NotBefore (when given) passed and NotOnOrAfter (required for bearer, SAML profiles 4.1.4.2) to come.
 */
function bearerConfirmationEnd(subject: Element | undefined, expected: AssertionExpectations): Date {
  const now = expected.now.getTime();
  const ends = (subject ? childrenNamed(subject, SAML, "SubjectConfirmation") : [])
    .filter((confirmation) => attribute(confirmation, "Method") === BEARER)
    .flatMap((confirmation) => childrenNamed(confirmation, SAML, "SubjectConfirmationData"))
    .filter((data) => attribute(data, "Recipient") === expected.acsUrl)
    .filter((data) => (instant(data, "NotBefore")?.getTime() ?? 0) <= now + expected.clockSkewMs)
    .flatMap((data) => instant(data, "NotOnOrAfter") ?? [])
    .filter((end) => end.getTime() > now - expected.clockSkewMs)
    .sort((a, b) => b.getTime() - a.getTime());
  if (ends[0] === undefined) {
    throw new AssertionProblem(`the assertion has no bearer SubjectConfirmation for ${expected.acsUrl} valid now`);
  }
  return ends[0];
}

/** An IdP-initiated answer names no request; an answer to ours names ours, wherever it names one. */
function checkInResponseTo(assertion: Element, inResponseTo: string | null): void {
  for (const data of everywhereNamed(assertion, "SubjectConfirmationData")) {
    const named = attribute(data, "InResponseTo");
    if (named === null) continue;
    if (inResponseTo === null) {
      throw new AssertionProblem(`the assertion answers request ${named}, and no request is waiting for an answer`);
    }
    if (named !== inResponseTo)
      throw new AssertionProblem(`the assertion answers request ${named}, not ${inResponseTo}`);
  }
}

function attributes(assertion: Element): SamlAttribute[] {
  return childrenNamed(assertion, SAML, "AttributeStatement")
    .flatMap((statement) => childrenNamed(statement, SAML, "Attribute"))
    .map((element) => ({
      name: attribute(element, "Name") ?? "",
      friendlyName: attribute(element, "FriendlyName"),
      values: childrenNamed(element, SAML, "AttributeValue").map((value) => value.textContent ?? ""),
    }));
}

/** An element's whole text (every text node, comments left out), trimmed; null when absent or empty. */
function text(element: Element | undefined): string | null {
  const content = element?.textContent?.trim();
  return content ? content : null;
}

/** An xs:dateTime attribute; refused when present and not one, as a time that cannot be read cannot be checked. */
function instant(element: Element, name: string): Date | null {
  const value = attribute(element, name);
  if (value === null) return null;
  const date = parseDateTime(value);
  if (date === null) throw new AssertionProblem(`${element.localName}'s ${name} is not an xs:dateTime: ${value}`);
  return date;
}
