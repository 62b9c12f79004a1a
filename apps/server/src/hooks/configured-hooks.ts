import { createHttpHook } from "@latchkey/adapters-hooks";
import { createFunctionHook } from "@latchkey/adapters-postgres";
import { HOOK_NAMES, type HookCaller, type HookName, type Hooks } from "@latchkey/domain";
import type { Config } from "../config/index.ts";
import { type HookObservers, observedHook } from "../observability/observed-hook.ts";

/** A hook at `uri`: a function of the database (pg-functions://), else an HTTP endpoint signed with its secrets. */
function callerOf(uri: string, secrets: readonly string[]): HookCaller {
  return uri.startsWith("pg-functions:") ? createFunctionHook({ uri }) : createHttpHook({ uri, secrets });
}

/**
 * The hooks HOOK_<NAME>_ENABLED switches on, each at its HOOK_<NAME>_URI (checked at start: checks.ts), observed
 * when tracing or metrics are on. A hook that is off is absent: its flows pay nothing for it.
 */
export function createConfiguredHooks(config: Pick<Config, "hooks">, observers: HookObservers): Hooks {
  const hooks: { [N in HookName]?: HookCaller } = {};
  const observed = observers.tracer !== undefined || observers.meter !== undefined;
  for (const name of HOOK_NAMES) {
    const { enabled, uri, secrets } = config.hooks[name];
    if (!enabled || uri === undefined) continue;
    const caller = callerOf(uri, secrets ?? []);
    hooks[name] = observed ? observedHook(name, caller, observers) : caller;
  }
  return hooks;
}
