import type { CredentialDescriptor, UserVerification, WebAuthnKey } from "../model/webauthn.ts";

/** Options to hand to the browser, as JSON, and the challenge they carry (base64url). */
export interface CeremonyOptions {
  readonly options: Readonly<Record<string, unknown>>;
  readonly challenge: string;
}

export interface RegistrationRequest {
  /** The user the credential is for; its handle is the UTF-8 of `id`, as GoTrue makes it. */
  readonly user: { readonly id: string; readonly name: string; readonly displayName: string };
  /** The user's credentials already registered, which the authenticator must not register again. */
  readonly exclude: readonly CredentialDescriptor[];
  /** `required` for passkeys: a discoverable credential is what signs in without a user name. */
  readonly residentKey: "required" | "preferred" | "discouraged";
  readonly userVerification: UserVerification;
}

export interface AuthenticationRequest {
  /** The credentials that may answer; none for a passkey sign-in, where the authenticator offers its own. */
  readonly allow: readonly CredentialDescriptor[];
  readonly userVerification: UserVerification;
}

/** What an assertion claims before anything of it is verified: which credential, and (discoverable) which user. */
export interface AssertionSubject {
  readonly credentialId: string;
  /** The user handle, decoded from UTF-8: a user id when the credential is ours; null when the response has none. */
  readonly userHandle: string | null;
}

/** What an answer must prove: the challenge it signs, and whether the user must have been verified. */
export interface Expectation {
  readonly challenge: string;
  readonly userVerification: UserVerification;
}

/** A verified assertion: the counter it reported, and whether the credential is backed up now. */
export interface VerifiedAssertion {
  readonly signCount: number;
  readonly backedUp: boolean;
}

/**
 * The WebAuthn ceremonies of the relying party Latchkey is (WEBAUTHN_RP_ID, _RP_DISPLAY_NAME, _RP_ORIGINS): options
 * for the browser, and the verification of what the authenticator answered (origin, rpId hash, challenge, flags,
 * attestation, signature). Answers it cannot verify come back as null, never as an exception: to the flows they are
 * one failure. The signature counter is checked by the flows, which know what to do when it goes backwards.
 */
export interface WebAuthnCeremony {
  registrationOptions(request: RegistrationRequest): Promise<CeremonyOptions>;
  authenticationOptions(request: AuthenticationRequest): Promise<CeremonyOptions>;
  /** The credential and user an assertion names; null when `response` is not an assertion at all. */
  assertionSubject(response: unknown): AssertionSubject | null;
  /** The credential a registration answer proves; null when it does not. */
  verifyRegistration(response: unknown, expected: Expectation): Promise<WebAuthnKey | null>;
  /** What to call a passkey of an authenticator model (its AAGUID), as the model's maker names it; `Passkey` else. */
  authenticatorName(aaguid: string | null): string;
  /** Whether an assertion is `key`'s signature over the challenge; null when it is not. */
  verifyAuthentication(
    response: unknown,
    expected: Expectation & { readonly key: WebAuthnKey },
  ): Promise<VerifiedAssertion | null>;
}
