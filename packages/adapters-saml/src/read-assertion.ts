import { AuthError, type SamlAssertion, type SamlIdpMetadata } from "@latchkey/domain";
import { type CacheProvider, type Profile, SAML, ValidateInResponseTo } from "@node-saml/node-saml";
import { XMLSerializer } from "@xmldom/xmldom";
import { decryptAssertion } from "./decrypt-assertion.ts";
import { responseProblem } from "./response-checks.ts";
import { decodeSamlResponse, parseSamlResponse } from "./saml-response.ts";
import type { SamlServiceProviderKey } from "./service-provider-key.ts";
import { AssertionProblem, readSignedAssertion } from "./signed-assertion.ts";

export interface ReadAssertionInput {
  readonly entityId: string;
  readonly acsUrl: string;
  /** The keys encrypted assertions are decrypted with, tried in order; none when they are not allowed. */
  readonly decryptionKeys: readonly SamlServiceProviderKey[];
  readonly clockSkewMs: number;
  readonly idp: SamlIdpMetadata;
  readonly samlResponse: string;
  readonly inResponseTo: string | null;
}

const notValid = (cause: unknown) => new AuthError("validation_failed", "SAML Assertion is not valid", { cause });

/**
 * SamlServiceProvider.readAssertion. The response is checked three times: here on the whole document (size, DTD,
 * one assertion, status, Destination, Issuer, InResponseTo; decrypted first when encrypted), by node-saml
 * (signatures, audience, time conditions), and here again on the assertion node-saml verified (issuer, bearer
 * confirmation), which alone supplies what is returned.
 */
export async function readAssertion(input: ReadAssertionInput): Promise<SamlAssertion> {
  const { idp, acsUrl, inResponseTo } = input;
  const base64 = await checkedResponse(input);
  if (idp.signingCertificates.length === 0) throw notValid(`the metadata of ${idp.entityId} names no certificate`);
  const profile = await verifiedProfile(input, base64);
  const signedXml = profile.getAssertionXml?.();
  if (signedXml === undefined) throw notValid("node-saml returned no assertion");
  try {
    return readSignedAssertion(signedXml, {
      idpEntityId: idp.entityId,
      acsUrl,
      inResponseTo,
      now: new Date(),
      clockSkewMs: input.clockSkewMs,
    });
  } catch (error) {
    throw notValid(error instanceof AssertionProblem ? error.message : error);
  }
}

/**
 * The response as node-saml is to read it (base64), once the whole document holds: an encrypted assertion is
 * decrypted first (decryptAssertion), and the document checked again with the assertion in the clear.
 */
async function checkedResponse(input: ReadAssertionInput): Promise<string> {
  const expected = { idpEntityId: input.idp.entityId, acsUrl: input.acsUrl, inResponseTo: input.inResponseTo };
  try {
    const decoded = decodeSamlResponse(input.samlResponse);
    const document = parseSamlResponse(decoded.xml);
    const problem = responseProblem(document, expected);
    if (problem !== null) throw new Error(problem);
    const decrypted = await decryptAssertion(document, input.decryptionKeys);
    if (decrypted === null) return decoded.base64;
    const again = responseProblem(decrypted, expected);
    if (again !== null) throw new Error(again);
    return Buffer.from(new XMLSerializer().serializeToString(decrypted)).toString("base64");
  } catch (error) {
    throw notValid(error instanceof AuthError ? `${error.message}: ${String(error.cause)}` : error);
  }
}

/** node-saml's verdict on a response whose assertion is in the clear: its signature, audience and times. */
async function verifiedProfile(input: ReadAssertionInput, base64: string): Promise<Profile> {
  try {
    const { profile } = await nodeSaml(input).validatePostResponseAsync({ SAMLResponse: base64 });
    if (profile === null) throw new Error("the response carries no assertion");
    return profile;
  } catch (error) {
    throw notValid(error instanceof Error ? error.message : error);
  }
}

function nodeSaml(input: ReadAssertionInput): SAML {
  return new SAML({
    idpCert: [...input.idp.signingCertificates],
    issuer: input.entityId,
    audience: input.entityId,
    callbackUrl: input.acsUrl,
    idpIssuer: input.idp.entityId,
    // A signed Response around an unsigned assertion is refused (GoTrue's crewjam/saml would take it): the assertion
    // travels on, and the signature that vouches for it must be its own.
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: input.clockSkewMs,
    ...(input.inResponseTo === null
      ? { validateInResponseTo: ValidateInResponseTo.never }
      : { validateInResponseTo: ValidateInResponseTo.always, cacheProvider: onlyRequest(input.inResponseTo) }),
  });
}

/** A request cache holding the one request this answer may be to (node-saml asks it for the InResponseTo). */
function onlyRequest(requestId: string): CacheProvider {
  const createdAt = Date.now();
  const value = new Date(createdAt).toISOString();
  return {
    saveAsync: async () => null,
    getAsync: async (key) => (key === requestId ? value : null),
    removeAsync: async () => null,
  };
}
