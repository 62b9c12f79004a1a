import type { Deps } from "./deps.ts";

export const millisecondsSince = (deps: Deps, started: Date) => deps.clock.now().getTime() - started.getTime();

/** Records how long `operation` took doing its real work. */
export function observeDuration(deps: Deps, operation: string, started: Date): void {
  deps.durations(operation).observe(millisecondsSince(deps, started));
}

/** What texting a code takes, until this process has timed a real send: an SMS provider's API round trip. */
export const SMS_SEND_GUESS_MS = 300;

/**
 * security: waits until `operation` has taken as long as it does when it does its real work, so that an answer
 * which skipped that work (the address is unknown, the account already exists) cannot be told apart by its timing.
 * Until the real work was timed in this process, `guessMs` stands in for it.
 */
export async function padDuration(deps: Deps, operation: string, started: Date, guessMs = 0): Promise<void> {
  const expected = deps.durations(operation).milliseconds() || guessMs;
  await deps.clock.sleep(expected - millisecondsSince(deps, started));
}
