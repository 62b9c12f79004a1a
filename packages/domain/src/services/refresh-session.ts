import type { Deps, RequestContext, SessionGrant } from "../deps.ts";
import { AuthError, messages } from "../errors.ts";
import { decideRefresh, type RefreshToken } from "../model/refresh-token.ts";
import { endedByLimits, hasEnded, lastRefreshedAt, type Session, type SessionLimitEnd } from "../model/session.ts";
import { isBanned, type User } from "../model/user.ts";
import type { RefreshTokenFound, Stores } from "../ports/stores.ts";
import { limitPerClient } from "./abuse/request-limits.ts";
import { auditEntry, recordAudit } from "./audit.ts";
import { accessClaims, grantSession, type OpenedSession } from "./sessions.ts";
import { refreshTokenDigest } from "./tokens/digests.ts";

export interface RefreshSessionInput {
  readonly refreshToken: string;
  readonly context: RequestContext;
  /** The authenticated client of a refresh at POST /oauth/token; absent at POST /token (first-party). */
  readonly oauthClientId?: string;
}

/** A refresh granted: the session, the refresh token and claims to answer with, and whether the session rotated. */
interface Granted extends OpenedSession {
  readonly user: User;
  readonly rotated: boolean;
}

type Outcome =
  | ({ readonly kind: "granted" } & Granted)
  | { readonly kind: "not_found" }
  | { readonly kind: "banned" }
  | { readonly kind: "session_ended"; readonly by?: SessionEnd }
  | { readonly kind: "reuse_detected"; readonly familyRevoked: boolean };

/** A refresh being carried out: the request, what its token found, and when it was read. */
interface Refresh {
  readonly input: RefreshSessionInput;
  readonly found: RefreshTokenFound;
  readonly now: Date;
}

/**
 * POST /token?grant_type=refresh_token, and the OAuth server's refresh grant (a service, as both use it).
 * Exchanges a refresh token for a new session grant, following the state table of model/refresh-token.ts.
 * Most refreshes present their session's current token with nobody else refreshing it: those read without a lock
 * and rotate in one guarded write. The rest, and a rotation whose guard finds the session changed since the read,
 * take the locked path: refreshes of one family are serialized on the session row, so concurrent refreshes of one
 * token create exactly one child and, within the reuse interval, all receive it.
 */
export async function refreshSession(deps: Deps, input: RefreshSessionInput): Promise<SessionGrant> {
  await limitPerClient(deps, "token", input.context);
  if (input.refreshToken === "") throw new AuthError("invalid_request", "refresh_token required");
  const presentedHash = refreshTokenDigest(deps.secrets, input.refreshToken);
  const rotated = await rotateUnlocked(deps, input, presentedHash);
  if (rotated) return grantRefreshed(deps, rotated);

  // Failures are returned rather than thrown, so that a family revocation commits even though the request fails.
  const outcome = await deps.tx.run((stores) => refreshLocked(deps, stores, input, presentedHash));
  switch (outcome.kind) {
    case "not_found":
      throw new AuthError("refresh_token_not_found", messages.refreshTokenNotFound);
    case "banned":
      throw new AuthError("user_banned", messages.userBanned);
    case "session_ended":
      throw new AuthError("session_expired", sessionEndedMessage(outcome.by));
    case "reuse_detected":
      deps.events.record({ kind: "refresh_token_reused", familyRevoked: outcome.familyRevoked });
      throw new AuthError("refresh_token_already_used", messages.refreshTokenAlreadyUsed);
    case "granted":
      return grantRefreshed(deps, outcome);
  }
}

/**
 * The common refresh, read without a lock: the session's current token, rotated in one write guarded on the session
 * being as read. Null when the refresh is one for the locked path, or the guard found the session changed.
 */
async function rotateUnlocked(deps: Deps, input: RefreshSessionInput, presentedHash: string): Promise<Granted | null> {
  const seen = await deps.stores.refreshTokens.findForRefresh(presentedHash);
  if (!seen) throw new AuthError("refresh_token_not_found", messages.refreshTokenNotFound);
  assertHolder(seen.session, input);
  const now = deps.clock.now();
  if (isBanned(seen.user, now)) throw new AuthError("user_banned", messages.userBanned);
  if (
    // A hook's claims are made in the transaction that moves the session: the locked path's.
    deps.hooks.custom_access_token !== undefined ||
    hasEnded(seen.session, now) ||
    endedByLimits(seen.session, now, deps.policy.sessions, seen.user) !== null ||
    // Whether a newer sign-in has superseded this one is judged under the lock.
    deps.policy.sessions.singlePerUser ||
    decideRefresh(seen.session, seen.token, now, deps.policy.refresh).kind !== "rotate"
  )
    return null;
  const rotation = rotationOf(deps, { input, found: seen, now });
  if (!(await deps.stores.sessions.rotate(rotation.session, rotation.childToken, [rotation.audit]))) return null;
  const { user } = seen;
  const claims = await accessClaims(deps, deps.stores, refreshed(user, rotation.session, input));
  return { user, session: rotation.session, refreshToken: rotation.refreshToken, claims, rotated: true };
}

/** The refresh under the session row's lock, in the caller's transaction: the state table decides, this carries out. */
async function refreshLocked(
  deps: Deps,
  stores: Stores,
  input: RefreshSessionInput,
  presentedHash: string,
): Promise<Outcome> {
  const found = await stores.refreshTokens.lockForRefresh(presentedHash);
  if (!found) return { kind: "not_found" };
  const { token, session, user } = found;
  assertHolder(session, input);
  const now = deps.clock.now();
  if (isBanned(user, now)) return { kind: "banned" };
  // Ended by a ban since lifted: its tokens stay dead. Returned, so the cleanup commits.
  if (hasEnded(session, now)) {
    await stores.sessions.deleteOne(session.userId, session.id);
    return { kind: "session_ended" };
  }
  // Past SESSIONS_TIMEBOX, SESSIONS_INACTIVITY_TIMEOUT or SESSIONS_ALLOW_LOW_AAL, or superseded by a newer sign-in
  // (SESSIONS_SINGLE_PER_USER): it ends for good, recorded. Returned, so that commits.
  const by = endedByLimits(session, now, deps.policy.sessions, user) ?? (await supersededBy(deps, stores, found, now));
  if (by !== null) {
    await stores.sessions.deleteOne(session.userId, session.id);
    const traits = { reason: `session_${by}`, session_id: session.id };
    await recordAudit(deps, stores, { action: "token_revoked", actor: user, context: input.context, traits });
    return { kind: "session_ended", by };
  }

  const decision = decideRefresh(session, token, now, deps.policy.refresh);
  switch (decision.kind) {
    case "rotate":
      return rotateLocked(deps, stores, { input, found, now });
    case "return_current":
      return returnCurrent(deps, stores, { input, found, now });
    case "reuse_detected":
      // The whole session goes: its refresh tokens, and with it every access token it issued, which the thief
      // may hold too. Returned, not thrown, so that this commits although the request fails.
      if (decision.revokeFamily) {
        await stores.sessions.deleteOne(session.userId, session.id);
        const traits = { reason: "refresh_token_reused", session_id: session.id };
        await recordAudit(deps, stores, { action: "token_revoked", actor: user, context: input.context, traits });
      }
      return { kind: "reuse_detected", familyRevoked: decision.revokeFamily };
  }
}

/** Why a session's refresh is refused for good: its limits, or a newer sign-in of its user. */
type SessionEnd = SessionLimitEnd | "newer_login";

/** GoTrue's words, which say why. */
function sessionEndedMessage(by: SessionEnd | undefined): string {
  switch (by) {
    case "inactivity":
      return "Invalid Refresh Token: Session Expired (Inactivity)";
    case "low_aal":
      return "Invalid Refresh Token: Session Expired (Low AAL: User Needs MFA Verification)";
    case "newer_login":
      return "Invalid Refresh Token: Session Expired (Revoked by Newer Login)";
    default:
      return "Invalid Refresh Token: Session Expired";
  }
}

/**
 * SESSIONS_SINGLE_PER_USER, as GoTrue chooses: a user keeps the session refreshed (else opened) last, and any other
 * is refused at its next refresh. Sessions that have ended anyway do not count, nor, a departure, sessions of
 * another holder: a third-party app's session (the OAuth server's) is not a sign-in to the app, and does not end it
 * (docs/compatibility.md, "Tokens and sessions"). The user's other sessions are read, not locked: a refresh of one
 * racing this one can only make it the newer, and the next refresh of the older settles it.
 */
async function supersededBy(
  deps: Deps,
  stores: Stores,
  { session, user }: RefreshTokenFound,
  now: Date,
): Promise<"newer_login" | null> {
  if (!deps.policy.sessions.singlePerUser) return null;
  const last = lastRefreshedAt(session).getTime();
  const others = await stores.sessions.listOfUser(user.id);
  const newer = others.some(
    (other) =>
      other.id !== session.id &&
      other.oauthClientId === session.oauthClientId &&
      !hasEnded(other, now) &&
      endedByLimits(other, now, deps.policy.sessions, user) === null &&
      lastRefreshedAt(other).getTime() > last,
  );
  return newer ? "newer_login" : null;
}

/** `rotate` under the lock: the session moves to the presented token's child. */
async function rotateLocked(deps: Deps, stores: Stores, refresh: Refresh): Promise<Outcome> {
  // Under the lock nothing can have moved the session since it was read, so the guard holds.
  const rotation = rotationOf(deps, refresh);
  if (!(await stores.sessions.rotate(rotation.session, rotation.childToken, [rotation.audit])))
    return { kind: "not_found" };
  const { user } = refresh.found;
  const claims = await accessClaims(deps, stores, refreshed(user, rotation.session, refresh.input));
  const { session, refreshToken } = rotation;
  return { kind: "granted", user, session, refreshToken, claims, rotated: true };
}

/** `return_current`: a retry within the reuse interval gets the session's current token, the previous one's child. */
async function returnCurrent(deps: Deps, stores: Stores, refresh: Refresh): Promise<Outcome> {
  const { input, found, now } = refresh;
  const { session, user } = found;
  const answer = deps.secrets.nextRefreshToken(input.refreshToken);
  if (!(await isCurrent(stores, session, refreshTokenDigest(deps.secrets, answer)))) {
    // compat: a session brought from GoTrue points at GoTrue's newest token, which is not derived from the
    // previous one: the client that missed it moves the session on to the derived one (docs/compatibility.md,
    // "Moving from Supabase Auth"), which its retries then get too.
    const rotation = rotationOf(deps, refresh, session.refreshTokenId);
    if (!(await stores.sessions.rotate(rotation.session, rotation.childToken, [rotation.audit])))
      return { kind: "not_found" };
    const claims = await accessClaims(deps, stores, refreshed(user, rotation.session, input));
    return { kind: "granted", user, session: rotation.session, refreshToken: answer, claims, rotated: true };
  }
  const touched: Session = { ...session, ...lastSeen(input, session, now) };
  await stores.sessions.update(touched);
  const traits = { within_reuse_interval: true };
  await recordAudit(deps, stores, { action: "token_refreshed", actor: user, context: input.context, traits });
  const claims = await accessClaims(deps, stores, refreshed(user, touched, input));
  return { kind: "granted", user, session: touched, refreshToken: answer, claims, rotated: false };
}

/**
 * security: a session refreshes only for whoever holds it, as GoTrue checks: a third-party client's session at the
 * OAuth token endpoint with that client authenticated, a first-party one at /token only. Otherwise a client could
 * turn its scoped session into a first-party one, or another client's into its own.
 */
function assertHolder(session: Session, input: RefreshSessionInput): void {
  const holder = session.oauthClientId;
  const client = input.oauthClientId ?? null;
  if (holder === client) return;
  const message =
    client === null
      ? "Client authentication required for OAuth session"
      : holder === null
        ? "Client authentication not allowed for non-OAuth session"
        : "Client does not match the session's OAuth client";
  throw new AuthError("invalid_client", message);
}

/** An access token issued by a refresh: GoTrue's `token_refresh`. */
function refreshed(user: User, session: Session, input: RefreshSessionInput) {
  return { user, session, method: "token_refresh", context: input.context };
}

async function grantRefreshed(deps: Deps, granted: Granted) {
  const { user, rotated } = granted;
  const grant = await grantSession(deps, user, granted);
  deps.events.record({ kind: "refreshed", rotated });
  return grant;
}

/** What the session records of the client on a refresh. */
function lastSeen(input: RefreshSessionInput, session: Session, now: Date) {
  return {
    ip: input.context.ip ?? session.ip,
    userAgent: input.context.userAgent ?? session.userAgent,
    updatedAt: now,
  };
}

/**
 * The session pointing at the presented token's child, the child, and the audit entry that records the rotation.
 * The child hangs off `replacing`: the presented token, unless an imported session's current token gives way to it.
 */
function rotationOf(deps: Deps, refresh: Refresh, replacing: string | null = refresh.found.token.id) {
  const { input, found, now } = refresh;
  const { token, session, user } = found;
  // The child is derived from its parent, so answering a retry needs no stored plaintext.
  const refreshToken = deps.secrets.nextRefreshToken(input.refreshToken);
  const childToken: RefreshToken = {
    id: deps.random.uuid(),
    sessionId: session.id,
    parentId: replacing,
    tokenHash: refreshTokenDigest(deps.secrets, refreshToken),
    createdAt: now,
  };
  const rotated: Session = {
    ...session,
    ...lastSeen(input, session, now),
    refreshTokenId: childToken.id,
    previousRefreshTokenId: token.id,
    rotatedAt: now,
  };
  const audit = auditEntry(deps, { action: "token_refreshed", actor: user, context: input.context });
  return { session: rotated, childToken, refreshToken, audit };
}

/**
 * Whether the token of this digest is the session's current one. It always is for the child of the previous token,
 * which is derived from it, but for a session imported from GoTrue that has not rotated here yet.
 */
async function isCurrent(stores: Stores, session: Session, tokenHash: string): Promise<boolean> {
  const found = await stores.refreshTokens.findForRefresh(tokenHash);
  return found !== null && found.token.id === session.refreshTokenId;
}
