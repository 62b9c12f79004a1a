import type { Expectation, VerifiedAssertion, WebAuthnKey } from "@latchkey/domain";
import {
  type AuthenticatorTransportFuture,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { ALGORITHMS } from "./options.ts";
import type { RelyingParty } from "./relying-party.ts";
import { isAuthenticationResponse, isRegistrationResponse, transportsOf } from "./responses.ts";

const NO_AAGUID = "00000000-0000-0000-0000-000000000000";

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

/**
 * The library throws for most answers it refuses (a foreign origin, another challenge, bytes that do not parse) and
 * returns `verified: false` for the rest (a bad signature). To the flows both are one failure: null.
 */
async function orNull<T>(verify: () => Promise<T | null>): Promise<T | null> {
  try {
    return await verify();
  } catch {
    return null;
  }
}

export function verifyRegistration(
  relyingParty: RelyingParty,
  response: unknown,
  expected: Expectation,
): Promise<WebAuthnKey | null> {
  if (!isRegistrationResponse(response)) return Promise.resolve(null);
  return orNull(async () => {
    const { verified, registrationInfo: info } = await verifyRegistrationResponse({
      response,
      expectedChallenge: expected.challenge,
      expectedOrigin: [...relyingParty.origins],
      expectedRPID: relyingParty.id,
      requireUserVerification: expected.userVerification === "required",
      supportedAlgorithmIDs: [...ALGORITHMS],
    });
    if (!verified) return null;
    return {
      credentialId: info.credential.id,
      publicKey: base64url(info.credential.publicKey),
      signCount: info.credential.counter,
      transports: transportsOf(response),
      aaguid: info.aaguid === NO_AAGUID ? null : info.aaguid,
      attestationType: info.fmt,
      backupEligible: info.credentialDeviceType === "multiDevice",
      backedUp: info.credentialBackedUp,
    };
  });
}

export function verifyAuthentication(
  relyingParty: RelyingParty,
  response: unknown,
  expected: Expectation & { readonly key: WebAuthnKey },
): Promise<VerifiedAssertion | null> {
  const { key } = expected;
  // The library checks the signature with the key it is given, whichever credential the answer names.
  if (!isAuthenticationResponse(response) || response.id !== key.credentialId) return Promise.resolve(null);
  return orNull(async () => {
    const { verified, authenticationInfo: info } = await verifyAuthenticationResponse({
      response,
      expectedChallenge: expected.challenge,
      expectedOrigin: [...relyingParty.origins],
      expectedRPID: relyingParty.id,
      credential: {
        id: key.credentialId,
        publicKey: new Uint8Array(Buffer.from(key.publicKey, "base64url")),
        // 0, so that the library never refuses a counter: the flows compare it with the stored one themselves, to
        // tell a cloned authenticator (a counter gone backwards) from an answer that does not verify.
        counter: 0,
        transports: [...key.transports] as AuthenticatorTransportFuture[],
      },
      requireUserVerification: expected.userVerification === "required",
    });
    return verified ? { signCount: info.newCounter, backedUp: info.credentialBackedUp } : null;
  });
}
