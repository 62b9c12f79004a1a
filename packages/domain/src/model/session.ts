/** How a session was authenticated, as it appears in the `amr` claim. */
export type AuthMethod =
  | "password"
  | "otp"
  | "magiclink"
  | "recovery"
  | "invite"
  | "email/signup"
  | "email_change"
  | "sms"
  | "oauth"
  | "anonymous"
  /** A passkey sign-in. */
  | "passkey"
  /** A third-party client's session, from an authorization code of the OAuth server. */
  | "oauth_provider/authorization_code"
  /** Second factors: a TOTP code, a code texted to a phone factor, a WebAuthn factor's signature. */
  | "totp"
  | "mfa/phone"
  | "mfa/webauthn";

export type Aal = "aal1" | "aal2";

export interface AmrEntry {
  readonly method: AuthMethod;
  readonly at: Date;
}

/**
 * One sign-in. Its refresh tokens form a family; the session points at the family's current (valid) token and at
 * the one before it, which is what the reuse interval needs. Every other token of the family is revoked by
 * definition, so revocation is never stored token by token.
 */
export interface Session {
  readonly id: string;
  readonly userId: string;
  readonly aal: Aal;
  readonly amr: readonly AmrEntry[];
  /** The valid refresh token. (A family revoked for reuse takes its session with it.) */
  readonly refreshTokenId: string | null;
  /** The token the valid one replaced. */
  readonly previousRefreshTokenId: string | null;
  /** When the valid token replaced the previous one: the start of the reuse interval. */
  readonly rotatedAt: Date | null;
  readonly userAgent: string | null;
  readonly ip: string | null;
  /** When the session ended (a ban ends them): from then on neither its access nor its refresh tokens work. */
  readonly notAfter: Date | null;
  /** The factor whose verification took the session to aal2; null at aal1. */
  readonly factorId: string | null;
  /** A session a third-party client holds through the OAuth server: that client; null for first-party sessions. */
  readonly oauthClientId: string | null;
  /** The scopes granted to that client, space-separated; null for first-party sessions. */
  readonly scopes: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** SESSIONS_TIMEBOX, SESSIONS_INACTIVITY_TIMEOUT: how long a session may live, and go unrefreshed; null: no limit. */
export interface SessionLimits {
  readonly timeboxSeconds: number | null;
  readonly inactivityTimeoutSeconds: number | null;
}

/**
 * Why the session limits end a session now, or null (GoTrue's CheckValidity): past its whole life (`timebox`,
 * from its creation), or unrefreshed for too long (`inactivity`, from its last rotation, else its creation).
 */
export function endedByLimits(session: Session, now: Date, limits: SessionLimits): "timebox" | "inactivity" | null {
  const at = now.getTime();
  if (limits.timeboxSeconds !== null && at > session.createdAt.getTime() + limits.timeboxSeconds * 1000) {
    return "timebox";
  }
  const lastRefresh = (session.rotatedAt ?? session.createdAt).getTime();
  if (limits.inactivityTimeoutSeconds !== null && at > lastRefresh + limits.inactivityTimeoutSeconds * 1000) {
    return "inactivity";
  }
  return null;
}

export function hasEnded(session: Session, now: Date): boolean {
  return session.notAfter !== null && session.notAfter.getTime() <= now.getTime();
}

export type LogoutScope = "global" | "local" | "others";
