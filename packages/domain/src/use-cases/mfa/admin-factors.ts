import type { AdminPrincipal, Deps, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { amrMethodOf, type Factor } from "../../model/factor.ts";
import type { User } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { findUserOrFail } from "../../services/accounts/find-user.ts";
import { recordAdminAudit } from "../../services/audit.ts";
import { assertFactorId, factorPhone } from "./factors.ts";

/** GET /admin/users/<id>/factors: the user's factors, verified or not, oldest first. */
export async function adminListFactors(deps: Deps, input: { readonly userId: string }): Promise<readonly Factor[]> {
  return (await findUserOrFail(deps.stores, input.userId)).factors;
}

export interface AdminDeleteFactorInput {
  readonly admin: AdminPrincipal;
  readonly userId: string;
  readonly factorId: string;
  readonly context: RequestContext;
}

/**
 * DELETE /admin/users/<id>/factors/<factor id>: an admin removes a factor (a user who lost their device), whatever
 * the sessions' level; the sessions it took to aal2 drop to aal1. Answers the factor removed. No mail: GoTrue
 * sends none for an admin's removal.
 */
export async function adminDeleteFactor(deps: Deps, input: AdminDeleteFactorInput): Promise<Factor> {
  return deps.tx.run(async (stores) => {
    const user = await findUserOrFail(stores, input.userId);
    assertFactorId(input.factorId);
    const factor = user.factors.find((each) => each.id === input.factorId);
    if (!factor || !(await stores.factors.delete(user.id, factor.id))) {
      throw new AuthError("mfa_factor_not_found", "Factor not found");
    }
    await stores.sessions.downgradeFactor(user.id, factor.id, amrMethodOf(factor.type), deps.clock.now());
    await auditAdminFactor(deps, stores, input, { action: "factor_deleted", user, factor });
    return factor;
  });
}

export interface AdminUpdateFactorInput {
  readonly admin: AdminPrincipal;
  readonly userId: string;
  readonly factorId: string;
  readonly friendlyName: string | undefined;
  /** A phone factor's new number, E.164. */
  readonly phone: string | undefined;
  readonly context: RequestContext;
}

/** PUT /admin/users/<id>/factors/<factor id>: renames a factor, or moves a phone factor to another number. */
export async function adminUpdateFactor(deps: Deps, input: AdminUpdateFactorInput): Promise<Factor> {
  return deps.tx.run(async (stores) => {
    const user = await findUserOrFail(stores, input.userId);
    assertFactorId(input.factorId);
    const factor = await stores.factors.find(user.id, input.factorId, { forUpdate: true });
    if (!factor) throw new AuthError("mfa_factor_not_found", "Factor not found");
    let phone = factor.phone;
    if (input.phone !== undefined && input.phone !== "") {
      if (factor.type !== "phone") {
        throw new AuthError("validation_failed", "Phone number can only be set on a phone factor");
      }
      phone = factorPhone(input.phone);
    }
    const friendlyName = input.friendlyName === undefined ? factor.friendlyName : input.friendlyName || null;
    const updated: Factor = { ...factor, friendlyName, phone, updatedAt: deps.clock.now() };
    await stores.factors.update(updated);
    await auditAdminFactor(deps, stores, input, { action: "factor_updated", user, factor });
    return updated;
  });
}

/** What an admin did to which factor of which user. */
interface FactorChange {
  readonly action: "factor_deleted" | "factor_updated";
  readonly user: User;
  readonly factor: Factor;
}

/** The admin's change to a user's factor, in the audit log: the admin acting, the factor named. */
function auditAdminFactor(
  deps: Deps,
  stores: Stores,
  input: { readonly admin: AdminPrincipal; readonly context: RequestContext },
  { action, user, factor }: FactorChange,
): Promise<void> {
  const traits = { factor_id: factor.id, factor_type: factor.type };
  return recordAdminAudit(deps, stores, { action, admin: input.admin, target: user, context: input.context, traits });
}
