import type { Deps, Principal } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import { assertTokenTimes, readTokenSubject } from "../../model/access-token-claims.ts";
import { endedByLimits, hasEnded } from "../../model/session.ts";
import { isBanned } from "../../model/user.ts";

/** Whoever holds a token whose user or session is gone is no one now: GoTrue refuses them with a 403. */
export const HOLDER_GONE = { case: "token_holder_gone" } as const;

export interface AuthenticateInput {
  readonly accessToken: string;
  /** X-JWT-AUD: when the caller names an audience, the token must be for it. */
  readonly audience?: string | undefined;
  /** Whether the endpoint serves third-party clients' tokens (the OAuth server's): /oauth/userinfo and /logout. */
  readonly thirdParty?: boolean;
}

/**
 * Resolves a bearer token to its user and session with one store round trip. The token must verify, its user and
 * session must still exist (a signed-out session's tokens stop working at once), and the user must not be banned.
 */
export async function authenticate(deps: Deps, input: AuthenticateInput): Promise<Principal> {
  const claims = await deps.signer.verify(input.accessToken);
  assertTokenTimes(claims, deps.clock.now(), "user");
  const subject = readTokenSubject(claims);

  let principal: Principal;
  if (subject.sessionId === null) {
    const user = await deps.stores.users.findById(subject.userId);
    // A soft-deleted user keeps its row, not its tokens.
    if (!user || user.deletedAt !== null)
      throw new AuthError("user_not_found", "User from sub claim in JWT does not exist", HOLDER_GONE);
    principal = { user, session: null, claims };
  } else {
    const found = await deps.stores.users.findWithSession(subject.userId, subject.sessionId);
    if (!found || found.user.deletedAt !== null)
      throw new AuthError("user_not_found", "User from sub claim in JWT does not exist", HOLDER_GONE);
    // A ban ends the user's sessions; their remaining access tokens still hear why.
    if (isBanned(found.user, deps.clock.now())) throw new AuthError("user_banned", messages.userBanned);
    if (!found.session)
      throw new AuthError("session_not_found", "Session from session_id claim in JWT does not exist", HOLDER_GONE);
    // A session past SESSIONS_TIMEBOX ends with its access tokens; inactivity is judged at the refresh (GoTrue's).
    const now = deps.clock.now();
    if (hasEnded(found.session, now) || endedByLimits(found.session, now, deps.policy.sessions) === "timebox")
      throw new AuthError("session_expired", "Session has expired", HOLDER_GONE);
    principal = { user: found.user, session: found.session, claims };
  }
  if (isBanned(principal.user, deps.clock.now())) throw new AuthError("user_banned", messages.userBanned);
  // security: a third-party client holds a token scoped to what the user allowed it; the account's own endpoints
  // (changing the password or email, factors, passkeys, identities, grants) are the user's, not the client's.
  // GoTrue accepts them anywhere (docs/compatibility.md, "OAuth server").
  if (principal.session?.oauthClientId && !input.thirdParty) {
    throw new AuthError("bad_jwt", "This token was issued to a third-party application: use it at /oauth/userinfo");
  }
  // After the user and session: GoTrue's middleware admits the token first, and the route then compares audiences.
  if (input.audience !== undefined && claims["aud"] !== input.audience) {
    throw new AuthError("validation_failed", "Token audience doesn't match request audience");
  }
  return principal;
}
