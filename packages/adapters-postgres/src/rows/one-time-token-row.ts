import type { OneTimeToken } from "@latchkey/domain";
import type { OneTimeTokensTable } from "../schema/one-time-tokens.ts";

export type OneTimeTokenRow = OneTimeTokensTable["$inferSelect"];

/** The token's columns. */
export function toOneTimeTokenRow(token: OneTimeToken): OneTimeTokenRow {
  return {
    id: token.id,
    userId: token.userId,
    kind: token.kind,
    relatesTo: token.relatesTo,
    linkTokenHash: token.linkTokenHash,
    otpHash: token.otpHash,
    failedAttempts: token.failedAttempts,
    createdAt: token.createdAt,
    codeChallenge: token.codeChallenge,
    codeChallengeMethod: token.codeChallengeMethod,
    passwordHash: token.passwordHash,
    userMetadata: token.userMetadata,
    identityId: token.identityId,
  };
}

/** The domain's OneTimeToken from its row. */
export function fromOneTimeTokenRow(row: OneTimeTokenRow): OneTimeToken {
  return { ...row };
}
