import type { Deps } from "./deps.ts";

export const millisecondsSince = (deps: Deps, started: Date) => deps.clock.now().getTime() - started.getTime();

/** Records how long `operation` took doing its real work. */
export function observeDuration(deps: Deps, operation: string, started: Date): void {
  deps.durations(operation).observe(millisecondsSince(deps, started));
}

/**
 * security: waits until `operation` has taken as long as it does when it does its real work, so that an answer
 * which skipped that work (the address is unknown, the account already exists) cannot be told apart by its timing.
 */
export async function padDuration(deps: Deps, operation: string, started: Date): Promise<void> {
  await deps.clock.sleep(deps.durations(operation).milliseconds() - millisecondsSince(deps, started));
}
