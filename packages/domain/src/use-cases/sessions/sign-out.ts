import type { Deps, Principal, RequestContext } from "../../deps.ts";
import type { LogoutScope } from "../../model/session.ts";
import { recordAudit } from "../../services/audit.ts";

export interface SignOutInput {
  readonly principal: Principal;
  readonly scope: LogoutScope;
  readonly context: RequestContext;
}

/** Ends sessions by scope; their refresh tokens go with them, and their access tokens stop being accepted. */
export async function signOut(deps: Deps, input: SignOutInput): Promise<void> {
  const { user, session } = input.principal;
  await deps.tx.run(async (stores) => {
    // A token without a session can only mean every session.
    if (session === null || input.scope === "global") await stores.sessions.deleteAllOfUser(user.id);
    else if (input.scope === "local") await stores.sessions.deleteOne(user.id, session.id);
    else await stores.sessions.deleteAllOfUser(user.id, { except: session.id });
    await recordAudit(deps, stores, {
      action: "logout",
      actor: user,
      context: input.context,
      traits: { scope: input.scope },
    });
  });
}
