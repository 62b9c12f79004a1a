/**
 * WebAuthn (passkeys, and WebAuthn second factors): what is kept of a credential, and of a ceremony begun. The
 * ceremony itself (attestation formats, COSE keys, signatures) is the WebAuthnCeremony port's; the rules of the
 * flows are the use cases'.
 */

/** WEBAUTHN_USER_VERIFICATION: whether the authenticator must verify its user (PIN, biometrics). */
export type UserVerification = "required" | "preferred" | "discouraged";

/** A public-key credential as a ceremony registered it. Binary values are base64url, without padding. */
export interface WebAuthnKey {
  /** The credential id the authenticator chose; unique among passkeys, and among WebAuthn factors. */
  readonly credentialId: string;
  /** The credential's public key, a COSE_Key. */
  readonly publicKey: string;
  /** The authenticator's signature counter at the last ceremony; 0 for authenticators that keep none. */
  readonly signCount: number;
  /** How the browser reached the authenticator (`internal`, `usb`, `hybrid`, ...), as it reported them. */
  readonly transports: readonly string[];
  /** The authenticator model's id (uuid form); null when it gave none, or only zeros. */
  readonly aaguid: string | null;
  /** The attestation statement's format: `none`, `packed`, ... */
  readonly attestationType: string;
  /** Whether the credential may be synced to other devices, and whether it is. */
  readonly backupEligible: boolean;
  readonly backedUp: boolean;
}

/** A passkey: a discoverable credential that signs its user in without a password. */
export interface Passkey extends WebAuthnKey {
  readonly id: string;
  readonly userId: string;
  /** What the user calls it; null when unnamed (GoTrue's omitted `friendly_name`). */
  readonly friendlyName: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly lastUsedAt: Date | null;
}

/** `registration` adds a passkey to a signed-in user; `authentication` signs someone in with one. */
export type PasskeyCeremony = "registration" | "authentication";

/**
 * A passkey ceremony begun: the challenge its answer must sign, single use, until `expiresAt`. A registration's is
 * bound to the user and the session that asked for it; a sign-in's to no one (the credential names its user), only
 * to its id, which the client holds.
 */
export interface WebAuthnChallenge {
  readonly id: string;
  readonly ceremony: PasskeyCeremony;
  readonly userId: string | null;
  readonly sessionId: string | null;
  /** The challenge the options carried, base64url. */
  readonly challenge: string;
  readonly userVerification: UserVerification;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/**
 * What a WebAuthn factor's challenge expects (GoTrue's `type`): `create` registers the factor's credential, `request`
 * asks it for a signature.
 */
export interface WebAuthnFactorChallenge {
  readonly type: "create" | "request";
  readonly challenge: string;
  readonly userVerification: UserVerification;
}

/** A credential named in an options answer: one to exclude from a registration, or to allow in a sign-in. */
export interface CredentialDescriptor {
  readonly credentialId: string;
  readonly transports: readonly string[];
}

export function descriptorOf(key: WebAuthnKey): CredentialDescriptor {
  return { credentialId: key.credentialId, transports: key.transports };
}

/**
 * Whether a counter reported by an authenticator may follow the stored one. Authenticators that keep no counter
 * report 0 every time; one that keeps one must report more than before, or the credential has been cloned.
 */
export function counterMayFollow(stored: number, reported: number): boolean {
  if (stored === 0 && reported === 0) return true;
  return reported > stored;
}
