import { AuthError, type SamlAssertion, type SamlIdpMetadata } from "@latchkey/domain";
import { type CacheProvider, type Profile, SAML, ValidateInResponseTo } from "@node-saml/node-saml";
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
 * one assertion, status, Destination, Issuer, InResponseTo), by node-saml (signatures, audience, time conditions,
 * decryption), and here again on the assertion node-saml verified (issuer, bearer confirmation), which alone
 * supplies what is returned.
 */
export async function readAssertion(input: ReadAssertionInput): Promise<SamlAssertion> {
  const { idp, acsUrl, inResponseTo } = input;
  let base64: string;
  try {
    const decoded = decodeSamlResponse(input.samlResponse);
    const problem = responseProblem(parseSamlResponse(decoded.xml), {
      idpEntityId: idp.entityId,
      acsUrl,
      inResponseTo,
    });
    if (problem !== null) throw new Error(problem);
    base64 = decoded.base64;
  } catch (error) {
    throw notValid(error instanceof AuthError ? `${error.message}: ${String(error.cause)}` : error);
  }
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
 * node-saml's verdict, with each decryption key in turn (the next key while it rotates in, as GoTrue tries it):
 * the first error is the one told when no key does.
 */
async function verifiedProfile(input: ReadAssertionInput, base64: string): Promise<Profile> {
  const keys = input.decryptionKeys.length > 0 ? input.decryptionKeys : [null];
  let first: unknown;
  for (const key of keys) {
    try {
      const { profile } = await nodeSaml(input, key).validatePostResponseAsync({ SAMLResponse: base64 });
      if (profile === null) throw new Error("the response carries no assertion");
      return profile;
    } catch (error) {
      first ??= error;
    }
  }
  throw notValid(first instanceof Error ? first.message : first);
}

function nodeSaml(input: ReadAssertionInput, decryptionKey: SamlServiceProviderKey | null): SAML {
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
    ...(decryptionKey ? { decryptionPvk: decryptionKey.privateKeyPem } : {}),
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
