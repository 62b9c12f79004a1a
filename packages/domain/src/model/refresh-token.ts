import type { Session } from "./session.ts";

/**
 * One issued refresh token. Only its digest is stored; whether it is valid is decided by its session's pointer
 * (see Session), not by a flag on the token.
 */
export interface RefreshToken {
  readonly id: string;
  readonly sessionId: string;
  /** The token this one replaced; null for the first token of a session. At most one token has a given parent. */
  readonly parentId: string | null;
  readonly tokenHash: string;
  readonly createdAt: Date;
}

export interface RefreshPolicy {
  /** SECURITY_REFRESH_TOKEN_ROTATION_ENABLED: a detected reuse revokes the whole family. */
  readonly rotationEnabled: boolean;
  /** SECURITY_REFRESH_TOKEN_REUSE_INTERVAL, in seconds. */
  readonly reuseIntervalSeconds: number;
}

export type RefreshDecision =
  /** The presented token is the valid one: revoke it and issue its child. */
  | { readonly kind: "rotate" }
  /** The presented token is the one just replaced, within the reuse interval: answer with its child again. */
  | { readonly kind: "return_current" }
  /** Anything else is a replay. With rotation enabled the whole family is revoked (and that must commit). */
  | { readonly kind: "reuse_detected"; readonly revokeFamily: boolean };

/** The refresh-token state table (docs/compatibility.md, Tokens and sessions), as one decision. */
export function decideRefresh(
  session: Session,
  presented: RefreshToken,
  now: Date,
  policy: RefreshPolicy,
): RefreshDecision {
  if (session.refreshTokenId !== null && presented.id === session.refreshTokenId) return { kind: "rotate" };
  if (
    session.refreshTokenId !== null &&
    presented.id === session.previousRefreshTokenId &&
    session.rotatedAt !== null &&
    now.getTime() < session.rotatedAt.getTime() + policy.reuseIntervalSeconds * 1000
  ) {
    return { kind: "return_current" };
  }
  return { kind: "reuse_detected", revokeFamily: policy.rotationEnabled };
}
