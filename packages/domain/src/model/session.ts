import { hasVerifiedFactor, type User } from "./user.ts";

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
  /** A SAML single sign-on; the amr entry names the provider. */
  | "sso/saml"
  | "anonymous"
  /** A passkey sign-in. */
  | "passkey"
  /** A Web3 sign-in: a message signed with an Ethereum or Solana wallet. */
  | "web3"
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

/**
 * SESSIONS_*: how long a session may live, and go unrefreshed, and stay below the level its user can reach (null: no
 * limit); and whether a user keeps one session only.
 */
export interface SessionLimits {
  readonly timeboxSeconds: number | null;
  readonly inactivityTimeoutSeconds: number | null;
  readonly allowLowAalSeconds: number | null;
  readonly singlePerUser: boolean;
}

export type SessionLimitEnd = "timebox" | "inactivity" | "low_aal";

/** When the session last moved: its last rotation, else its opening (GoTrue's LastRefreshedAt). */
export function lastRefreshedAt(session: Session): Date {
  return session.rotatedAt ?? session.createdAt;
}

/**
 * Why the session limits end a session now, or null (GoTrue's CheckValidity): past its whole life (`timebox`,
 * from its creation), unrefreshed for too long (`inactivity`, from its last rotation, else its creation), or still
 * at aal1 too long after its creation while its user has a verified factor (`low_aal`: judged only when `user` is
 * given).
 */
export function endedByLimits(session: Session, now: Date, limits: SessionLimits, user?: User): SessionLimitEnd | null {
  const at = now.getTime();
  const since = (from: Date, seconds: number | null) => seconds !== null && at > from.getTime() + seconds * 1000;
  if (since(session.createdAt, limits.timeboxSeconds)) return "timebox";
  if (since(lastRefreshedAt(session), limits.inactivityTimeoutSeconds)) return "inactivity";
  if (
    user &&
    session.aal === "aal1" &&
    hasVerifiedFactor(user) &&
    since(session.createdAt, limits.allowLowAalSeconds)
  ) {
    return "low_aal";
  }
  return null;
}

export function hasEnded(session: Session, now: Date): boolean {
  return session.notAfter !== null && session.notAfter.getTime() <= now.getTime();
}

export type LogoutScope = "global" | "local" | "others";
