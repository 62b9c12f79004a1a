import type { Document } from "@xmldom/xmldom";
import { attribute, childrenNamed, everywhereNamed, firstChildNamed, SAML, SAMLP } from "./strict-xml.ts";

const SUCCESS = "urn:oasis:names:tc:SAML:2.0:status:Success";

export interface ResponseExpectations {
  readonly idpEntityId: string;
  readonly acsUrl: string;
  readonly inResponseTo: string | null;
}

/**
 * What node-saml leaves unchecked on the Response around the assertion, checked on the whole document before it
 * runs: the reason the response is refused, or null. The Response need not be signed, so these only ever refuse.
 */
export function responseProblem(document: Document, expected: ResponseExpectations): string | null {
  const response = document.documentElement!;
  // Exactly one assertion anywhere: a second one, however deep, is how signature wrapping hides the signed one.
  const assertions =
    everywhereNamed(document, "Assertion").length + everywhereNamed(document, "EncryptedAssertion").length;
  if (assertions !== 1) return `the response has ${assertions} assertions, not one`;
  const sole = [...childrenNamed(response, SAML, "Assertion"), ...childrenNamed(response, SAML, "EncryptedAssertion")];
  if (sole.length !== 1) return "the assertion is not a child of the Response";
  const status = statusCode(document);
  if (status !== SUCCESS) return `the response's status is ${status ?? "missing"}, not Success`;
  const destination = attribute(response, "Destination");
  if (destination !== null && destination !== expected.acsUrl) {
    return `the response's Destination is ${destination}, not ${expected.acsUrl}`;
  }
  const issuer = firstChildNamed(response, SAML, "Issuer");
  if (issuer !== undefined && (issuer.textContent ?? "").trim() !== expected.idpEntityId) {
    return `the response's Issuer is ${issuer.textContent}, not ${expected.idpEntityId}`;
  }
  const inResponseTo = attribute(response, "InResponseTo");
  if (expected.inResponseTo === null && inResponseTo !== null) {
    return `the response answers request ${inResponseTo}, and no request is waiting for an answer`;
  }
  if (expected.inResponseTo !== null && inResponseTo !== expected.inResponseTo) {
    return `the response answers request ${inResponseTo ?? "(none)"}, not ${expected.inResponseTo}`;
  }
  return null;
}

/** The top-level StatusCode's Value (a nested one only refines it). */
function statusCode(document: Document): string | null {
  const status = firstChildNamed(document.documentElement!, SAMLP, "Status");
  const code = status && firstChildNamed(status, SAMLP, "StatusCode");
  return code ? attribute(code, "Value") : null;
}
