import type { WebAuthnFactorChallenge, WebAuthnKey } from "./webauthn.ts";

/** The second factors Latchkey offers (GoTrue's `factor_type`). */
export type FactorType = "totp" | "phone" | "webauthn";

export type FactorStatus = "unverified" | "verified";

/**
 * A second factor of a user. Unverified until a first code proves it, and removed if that does not happen within
 * MFA_FACTOR_EXPIRY_DURATION.
 */
export interface Factor {
  readonly id: string;
  readonly userId: string;
  readonly type: FactorType;
  /** Null when none was given (GoTrue's omitted `friendly_name`). */
  readonly friendlyName: string | null;
  readonly status: FactorStatus;
  /** TOTP: the shared secret, sealed under the factor's id (FactorSecrets): the store never holds it in clear. */
  readonly sealedSecret: string | null;
  /** Phone: the number, E.164 with a leading `+`. */
  readonly phone: string | null;
  /**
   * TOTP: the last time step a code was accepted for. A code of that step or an earlier one is refused, so a code
   * seen over someone's shoulder cannot be used again.
   */
  readonly lastTotpStep: number | null;
  /** WebAuthn: the credential its first verification registered; null until then. */
  readonly webauthn: WebAuthnKey | null;
  readonly lastChallengedAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The `amr` method a factor's verification adds to a session (GoTrue's: `totp`, not `mfa/totp`). */
export function amrMethodOf(type: FactorType): "totp" | "mfa/phone" | "mfa/webauthn" {
  switch (type) {
    case "totp":
      return "totp";
    case "phone":
      return "mfa/phone";
    case "webauthn":
      return "mfa/webauthn";
  }
}

/**
 * One challenge of a factor: what a verification answers. Single use, bound to the client address that asked for
 * it, and expiring MFA_CHALLENGE_EXPIRY_DURATION after its creation.
 */
export interface MfaChallenge {
  readonly id: string;
  readonly factorId: string;
  /** The client address that made it; only a verification from the same address is accepted. */
  readonly ip: string | null;
  /** Phone: the digest of the code texted (never the code). Null for TOTP, whose codes come from the app. */
  readonly codeDigest: string | null;
  /** WebAuthn: what the ceremony the challenge began expects. Null for the other types. */
  readonly webauthn: WebAuthnFactorChallenge | null;
  readonly createdAt: Date;
  readonly verifiedAt: Date | null;
}
