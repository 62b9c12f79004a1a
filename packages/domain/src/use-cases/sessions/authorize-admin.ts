import type { AdminPrincipal, Deps } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { assertTokenTimes } from "../../model/access-token-claims.ts";
import { hasEnded } from "../../model/session.ts";
import { isUuid } from "../../model/uuid.ts";
import { HOLDER_GONE } from "./authenticate.ts";

/**
 * Admits a bearer token signed by us whose `role` is an admin role. A token that names a session must still have
 * its user and session (GoTrue's check); service keys, which name none, need no database at all, nor an `exp`, even
 * with a `sub` (GoTrue never loads that user).
 */
export async function authorizeAdmin(deps: Deps, input: { readonly accessToken: string }): Promise<AdminPrincipal> {
  const claims = await deps.signer.verify(input.accessToken);
  assertTokenTimes(claims, deps.clock.now(), "admin");
  const role = typeof claims["role"] === "string" ? claims["role"] : "";
  if (!deps.policy.adminRoles.includes(role)) throw new AuthError("not_admin", "User not allowed");
  const sub = claims["sub"];
  const sessionId = claims["session_id"];
  if (isUuid(sub) && isUuid(sessionId)) {
    const found = await deps.stores.users.findWithSession(sub, sessionId);
    if (!found || found.user.deletedAt !== null)
      throw new AuthError("user_not_found", "User from sub claim in JWT does not exist", HOLDER_GONE);
    if (!found.session)
      throw new AuthError("session_not_found", "Session from session_id claim in JWT does not exist", HOLDER_GONE);
    if (hasEnded(found.session, deps.clock.now()))
      throw new AuthError("session_expired", "Session has expired", HOLDER_GONE);
  }
  return { role, userId: isUuid(sub) ? sub : null, claims };
}
