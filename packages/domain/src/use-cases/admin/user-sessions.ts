import type { AdminPrincipal, Deps, RequestContext } from "../../deps.ts";
import type { Session } from "../../model/session.ts";
import { findUserOrFail } from "../../services/accounts/find-user.ts";
import { recordAdminAudit } from "../../services/audit.ts";

// Latchkey's own admin endpoints (GoTrue has neither): a user's sessions, and signing the user out everywhere.

export interface AdminSignOutUserInput {
  readonly admin: AdminPrincipal;
  readonly userId: string;
  readonly context: RequestContext;
}

/**
 * GET /admin/users/<id>/sessions: every session of the user, ended or not (an ended one carries its `notAfter`),
 * newest first; `user_not_found` for a user that does not exist.
 */
export async function adminListSessions(deps: Deps, input: { readonly userId: string }): Promise<Session[]> {
  const user = await findUserOrFail(deps.stores, input.userId);
  const sessions = await deps.stores.sessions.listOfUser(user.id);
  // The store lists them in no order: newest first, and by id among sessions opened at the same instant, so that
  // the order is the same from one call to the next.
  return sessions.sort(
    (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * DELETE /admin/users/<id>/sessions: signs the user out everywhere. Every session goes, and its refresh tokens with
 * it, so none of them refreshes again and their access tokens stop being accepted; the user stays as it is.
 *
 * The audit entry is GoTrue's `logout` with scope `global`, the action its own POST /logout?scope=global writes: what
 * happened to the user is the same sign-out everywhere. As for every admin action (user_modified, user_deleted),
 * the admin is the actor (a service key by its role) and the traits name the user signed out, so the log tells an
 * admin's sign-out (actor not the user, `user_id` in the traits) from the user's own.
 */
export async function adminSignOutUser(deps: Deps, input: AdminSignOutUserInput): Promise<void> {
  await deps.tx.run(async (stores) => {
    const user = await findUserOrFail(stores, input.userId, { forUpdate: true });
    await stores.sessions.deleteAllOfUser(user.id);
    await recordAdminAudit(deps, stores, {
      action: "logout",
      admin: input.admin,
      target: user,
      context: input.context,
      traits: { scope: "global" },
    });
  });
}
