import type { WebAuthnChallenge } from "@latchkey/domain";
import type { WebAuthnChallengesTable } from "../schema/webauthn-challenges.ts";

export type WebAuthnChallengeRow = WebAuthnChallengesTable["$inferSelect"];

/** The challenge's columns: the domain's fields, one to one. */
export function toWebAuthnChallengeRow(challenge: WebAuthnChallenge): WebAuthnChallengeRow {
  return {
    id: challenge.id,
    userId: challenge.userId,
    sessionId: challenge.sessionId,
    ceremony: challenge.ceremony,
    challenge: challenge.challenge,
    userVerification: challenge.userVerification,
    createdAt: challenge.createdAt,
    expiresAt: challenge.expiresAt,
  };
}

/** The domain's WebAuthnChallenge from its row. */
export function fromWebAuthnChallengeRow(row: WebAuthnChallengeRow): WebAuthnChallenge {
  return {
    id: row.id,
    ceremony: row.ceremony,
    userId: row.userId,
    sessionId: row.sessionId,
    challenge: row.challenge,
    userVerification: row.userVerification,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
  };
}
