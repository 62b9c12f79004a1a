import type { MfaChallenge } from "@latchkey/domain";
import type { MfaChallengesTable } from "../schema/mfa-challenges.ts";

export type MfaChallengeRow = MfaChallengesTable["$inferSelect"];

/** The challenge's columns (GoTrue's names: `ip_address`, and `otp_code` for the code's digest). */
export function toMfaChallengeRow(challenge: MfaChallenge): MfaChallengeRow {
  return {
    id: challenge.id,
    factorId: challenge.factorId,
    ipAddress: challenge.ip,
    otpCode: challenge.codeDigest,
    createdAt: challenge.createdAt,
    verifiedAt: challenge.verifiedAt,
  };
}

/** The domain's MfaChallenge from its row. */
export function fromMfaChallengeRow(row: MfaChallengeRow): MfaChallenge {
  return {
    id: row.id,
    factorId: row.factorId,
    ip: row.ipAddress,
    codeDigest: row.otpCode,
    createdAt: row.createdAt,
    verifiedAt: row.verifiedAt,
  };
}
