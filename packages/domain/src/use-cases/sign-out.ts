import type { LogoutScope } from "../model/session.ts";
import type { Deps, Principal } from "./deps.ts";

/** Ends sessions by scope; their refresh tokens go with them, and their access tokens stop being accepted. */
export async function signOut(deps: Deps, input: { readonly principal: Principal; readonly scope: LogoutScope }): Promise<void> {
  const { user, session } = input.principal;
  const { sessions } = deps.stores;
  // A token without a session can only mean every session.
  if (session === null || input.scope === "global") return sessions.deleteAllOfUser(user.id);
  if (input.scope === "local") return sessions.deleteOne(user.id, session.id);
  return sessions.deleteAllOfUser(user.id, { except: session.id });
}
