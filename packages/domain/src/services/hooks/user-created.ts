import type { Deps, RequestContext } from "../../deps.ts";
import type { User } from "../../model/user.ts";
import { presentUser } from "../../model/user-json.ts";
import type { Stores } from "../../ports/stores.ts";
import { callHook, hookMetadata } from "./call-hook.ts";

/**
 * Asks the before_user_created hook about `user`, about to be created by any kind of sign-up: its error (an answer
 * `{"error": {...}}`, a function that raises) refuses the sign-up before anything is written. `stores`: the
 * transaction that will create the user, where there is one (a function in the database runs in it).
 */
export async function beforeUserCreated(
  deps: Deps,
  stores: Stores,
  { user, context }: { user: User; context: RequestContext | null },
): Promise<void> {
  const hook = deps.hooks.before_user_created;
  if (hook === undefined) return;
  const payload = { metadata: hookMetadata(deps, "before_user_created", context), user: presentUser(user) };
  await callHook(hook, { name: "before_user_created", payload, stores });
}

/**
 * Tells the after_user_created hook of `user`, once its creation has committed. As in GoTrue, its failure fails the
 * request, although the user stays created.
 */
export async function afterUserCreated(
  deps: Deps,
  { user, context }: { user: User; context: RequestContext | null },
): Promise<void> {
  const hook = deps.hooks.after_user_created;
  if (hook === undefined) return;
  const payload = { metadata: hookMetadata(deps, "after_user_created", context), user: presentUser(user) };
  await callHook(hook, { name: "after_user_created", payload, stores: deps.stores });
}
