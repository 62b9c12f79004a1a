import type { AdminPrincipal, Deps, RequestContext } from "../../deps.ts";
import { type User, withoutEmailChange } from "../../model/user.ts";
import { findUserOrFail } from "../../services/accounts/find-user.ts";
import { recordAdminAudit } from "../../services/audit.ts";

export interface AdminDeleteUserInput {
  readonly admin: AdminPrincipal;
  readonly userId: string;
  /** Keep the row, marked deleted and stripped of every way in (GoTrue's `should_soft_delete`). */
  readonly softDelete?: boolean | undefined;
  readonly context: RequestContext;
}

/**
 * DELETE /admin/users/<id>. A hard delete removes the user with everything that hangs off it. A soft delete keeps
 * the row for the record but frees its email and phone for others and removes its identities, sessions and
 * pending tokens, so nothing signs in as it again. Either way the audit log keeps who it was.
 */
export async function adminDeleteUser(deps: Deps, input: AdminDeleteUserInput): Promise<void> {
  await deps.tx.run(async (stores) => {
    const user = await findUserOrFail(stores, input.userId, { forUpdate: true });
    await recordAdminAudit(deps, stores, {
      action: "user_deleted",
      admin: input.admin,
      target: user,
      context: input.context,
    });
    if (!input.softDelete) {
      await stores.users.delete(user.id);
      return;
    }
    const now = deps.clock.now();
    const erased: User = {
      ...withoutEmailChange(user),
      email: null,
      phone: null,
      newPhone: null,
      passwordHash: null,
      identities: [],
      deletedAt: user.deletedAt ?? now,
      updatedAt: now,
    };
    await stores.sessions.deleteAllOfUser(user.id);
    await stores.oneTimeTokens.deleteAllOfUser(user.id);
    await stores.identities.deleteAllOfUser(user.id);
    await stores.users.update(erased);
  });
}
