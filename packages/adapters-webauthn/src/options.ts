import type {
  AuthenticationRequest,
  CeremonyOptions,
  CredentialDescriptor,
  RegistrationRequest,
} from "@latchkey/domain";
import {
  type AuthenticatorTransportFuture,
  generateAuthenticationOptions,
  generateRegistrationOptions,
} from "@simplewebauthn/server";
import type { RelyingParty } from "./relying-party.ts";

/** The algorithms a new credential may use, most preferred first: EdDSA, ES256, RS256 (Windows Hello's). */
export const ALGORITHMS: readonly number[] = [-8, -7, -257];

/** As the browser reads a descriptor. Transports are hints it ignores when it does not know them. */
const descriptors = (credentials: readonly CredentialDescriptor[]) =>
  credentials.map((credential) => ({
    id: credential.credentialId,
    transports: [...credential.transports] as AuthenticatorTransportFuture[],
  }));

export async function registrationOptions(
  relyingParty: RelyingParty,
  request: RegistrationRequest,
): Promise<CeremonyOptions> {
  const options = await generateRegistrationOptions({
    rpName: relyingParty.name,
    rpID: relyingParty.id,
    // GoTrue's user handle: the bytes of the id as text, which an assertion's userHandle gives back.
    userID: new TextEncoder().encode(request.user.id),
    userName: request.user.name,
    userDisplayName: request.user.displayName,
    attestationType: "none",
    excludeCredentials: descriptors(request.exclude),
    // A fresh object: the library writes requireResidentKey into it.
    authenticatorSelection: { residentKey: request.residentKey, userVerification: request.userVerification },
    supportedAlgorithmIDs: [...ALGORITHMS],
  });
  return { options: { ...options }, challenge: options.challenge };
}

export async function authenticationOptions(
  relyingParty: RelyingParty,
  request: AuthenticationRequest,
): Promise<CeremonyOptions> {
  const options = await generateAuthenticationOptions({
    rpID: relyingParty.id,
    // Empty for a passkey sign-in: the authenticator offers the discoverable credentials it has for the rp.
    allowCredentials: descriptors(request.allow),
    userVerification: request.userVerification,
  });
  return { options: { ...options }, challenge: options.challenge };
}
