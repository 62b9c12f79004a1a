import type { Deps } from "../../deps.ts";

export const millisecondsSince = (deps: Deps, started: Date) => deps.clock.now().getTime() - started.getTime();

/** What texting a code takes, until this process has timed a real send: an SMS provider's API round trip. */
export const SMS_SEND_GUESS_MS = 300;

/**
 * The operations whose answer, when it skips the real work (the address is unknown, the account already exists),
 * is made to take as long as the real work does; and what that real work holds besides one write transaction.
 */
const PADDED_OPERATIONS = {
  "signup:email": { hashes: true, texts: false },
  "signup:phone": { hashes: true, texts: true },
  recovery: { hashes: false, texts: false },
  "resend:signup": { hashes: false, texts: false },
  "resend:email_change": { hashes: false, texts: false },
  "resend:sms": { hashes: false, texts: true },
  "resend:phone_change": { hashes: false, texts: true },
} as const satisfies Record<string, { hashes: boolean; texts: boolean }>;

export type PaddedOperation = keyof typeof PADDED_OPERATIONS;

/** Records how long `operation` took doing its real work. */
export function observeDuration(deps: Deps, operation: PaddedOperation, started: Date): void {
  deps.durations(operation).observe(millisecondsSince(deps, started));
}

/**
 * security: waits until `operation` has taken as long as it does when it does its real work, so that an answer which
 * skipped that work cannot be told apart by its timing. The estimate starts from what seedDurations measured when
 * the process started, then follows the real work as it is timed.
 */
export async function padDuration(deps: Deps, operation: PaddedOperation, started: Date): Promise<void> {
  const guess = PADDED_OPERATIONS[operation].texts ? SMS_SEND_GUESS_MS : 0;
  const expected = deps.durations(operation).milliseconds() || guess;
  await deps.clock.sleep(expected - millisecondsSince(deps, started));
}

/** What one password hash and one write transaction took on this machine, measured at start. */
export interface MeasuredWork {
  readonly hashMs: number;
  readonly writeMs: number;
}

/**
 * Starts each padded operation's estimate from the measured cost of its work, so that the first answers after a
 * start are padded like the later ones rather than not at all.
 */
export function seedDurations(deps: Deps, measured: MeasuredWork): void {
  for (const [operation, work] of Object.entries(PADDED_OPERATIONS)) {
    const milliseconds = measured.writeMs + (work.hashes ? measured.hashMs : 0) + (work.texts ? SMS_SEND_GUESS_MS : 0);
    deps.durations(operation).observe(milliseconds);
  }
}
