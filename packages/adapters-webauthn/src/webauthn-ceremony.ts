import type { WebAuthnCeremony } from "@latchkey/domain";
import { authenticatorName } from "./authenticator-names.ts";
import { authenticationOptions, registrationOptions } from "./options.ts";
import type { RelyingParty } from "./relying-party.ts";
import { assertionSubjectOf } from "./responses.ts";
import { verifyAuthentication, verifyRegistration } from "./verification.ts";

/**
 * The domain's WebAuthnCeremony over SimpleWebAuthn, for one relying party. Attestation is not asked for (`none`):
 * a `packed` or other statement an authenticator sends anyway is verified as far as the library can without
 * metadata, and its format kept.
 */
export function createWebAuthnCeremony(relyingParty: RelyingParty): WebAuthnCeremony {
  const rp: RelyingParty = { id: relyingParty.id, name: relyingParty.name, origins: [...relyingParty.origins] };
  return {
    registrationOptions: (request) => registrationOptions(rp, request),
    authenticationOptions: (request) => authenticationOptions(rp, request),
    assertionSubject: assertionSubjectOf,
    verifyRegistration: (response, expected) => verifyRegistration(rp, response, expected),
    authenticatorName,
    verifyAuthentication: (response, expected) => verifyAuthentication(rp, response, expected),
  };
}
