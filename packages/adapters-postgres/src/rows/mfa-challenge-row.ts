import type { MfaChallenge, WebAuthnFactorChallenge } from "@latchkey/domain";
import type { MfaChallengesTable } from "../schema/mfa-challenges.ts";

export type MfaChallengeRow = MfaChallengesTable["$inferSelect"];

/** What a WebAuthn factor's challenge expects, with the domain's fields only. */
function expectationOf(json: WebAuthnFactorChallenge | null): WebAuthnFactorChallenge | null {
  if (json === null) return null;
  const { type, challenge, userVerification } = json;
  return { type, challenge, userVerification };
}

/**
 * The challenge's columns (GoTrue's names: `ip_address`, `otp_code` for the code's digest, and
 * `web_authn_session_data` for what a WebAuthn challenge expects).
 */
export function toMfaChallengeRow(challenge: MfaChallenge): MfaChallengeRow {
  return {
    id: challenge.id,
    factorId: challenge.factorId,
    ipAddress: challenge.ip,
    otpCode: challenge.codeDigest,
    createdAt: challenge.createdAt,
    verifiedAt: challenge.verifiedAt,
    webAuthnSessionData: expectationOf(challenge.webauthn),
  };
}

/** The domain's MfaChallenge from its row. */
export function fromMfaChallengeRow(row: MfaChallengeRow): MfaChallenge {
  return {
    id: row.id,
    factorId: row.factorId,
    ip: row.ipAddress,
    codeDigest: row.otpCode,
    webauthn: expectationOf(row.webAuthnSessionData),
    createdAt: row.createdAt,
    verifiedAt: row.verifiedAt,
  };
}
