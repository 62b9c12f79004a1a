import type { Deps, Principal, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { amrMethodOf } from "../../model/factor.ts";
import { recordAudit } from "../../services/audit.ts";
import { factorOf, notifyFactor, sessionOf } from "./factors.ts";

export interface UnenrollFactorInput {
  readonly principal: Principal;
  readonly factorId: string;
  readonly context: RequestContext;
}

/**
 * DELETE /factors/<id>: the user removes a factor; a verified one only from an aal2 session (an aal1 session would
 * otherwise take the second factor off the account it protects). The sessions it took to aal2 drop to aal1; their
 * access tokens say aal2 until they are refreshed, as GoTrue's do.
 */
export async function unenrollFactor(deps: Deps, input: UnenrollFactorInput): Promise<{ id: string }> {
  const session = sessionOf(input.principal);
  const userId = input.principal.user.id;
  await deps.tx.run(async (stores) => {
    const factor = await factorOf(stores, userId, input.factorId, true);
    if (factor.status === "verified" && session.aal !== "aal2") {
      throw new AuthError("insufficient_aal", "AAL2 required to unenroll verified factor");
    }
    const now = deps.clock.now();
    await stores.factors.delete(userId, factor.id);
    await stores.sessions.downgradeFactor(userId, factor.id, amrMethodOf(factor.type), now);
    await recordAudit(deps, stores, {
      action: "factor_unenrolled",
      actor: input.principal.user,
      context: input.context,
      traits: { factor_id: factor.id, factor_status: factor.status },
    });
    // A factor never verified was never a way in: its removal is no news to the account.
    if (factor.status === "verified") {
      await notifyFactor(deps, stores, input.principal.user, { kind: "mfa_factor_unenrolled", factor });
    }
  });
  return { id: input.factorId };
}
