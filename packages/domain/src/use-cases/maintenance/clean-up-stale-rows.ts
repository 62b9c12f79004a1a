import type { Deps } from "../../deps.ts";
import type { AuthPolicy } from "../../policy.ts";
import type { StaleRowKind } from "../../ports/stale-rows.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * How long each kind of row is kept once it is of no more use, as Supabase Auth's clean-up keeps them
 * (docs/compatibility.md, "Clean-up"):
 * - a rotated refresh token, 24 hours from its rotation: long past the reuse interval, and the window in which
 *   presenting it again is caught as reuse and ends its session; after it, it is an unknown token
 *   (`refresh_token_not_found`), and its session lives on;
 * - a session past its `notAfter`, 72 hours; past SESSIONS_TIMEBOX or SESSIONS_INACTIVITY_TIMEOUT, 24 hours, so a
 *   refresh within that day hears `session_expired` (and ends it then);
 * - PKCE, provider and SAML flows, MFA challenges and factors never verified, 24 hours from their start;
 * - a one-time token, a day past the longest life one can have (MAILER_OTP_EXP, SMS_OTP_EXP);
 * - what has an expiry of its own (OAuth server authorizations, passkey challenges, used id_tokens), until it;
 * - the outbox's finished messages (their content is erased at delivery), DB_CLEANUP_OUTBOX_RETENTION;
 * - anonymous users, 30 days from their creation while anonymous sign-ins are on (Supabase Auth's rule).
 */
export function staleCutoffs(policy: AuthPolicy, now: Date): ReadonlyMap<StaleRowKind, Date> {
  const before = (ms: number) => new Date(now.getTime() - ms);
  const { sessions, otp, cleanup, signup } = policy;
  const cutoffs = new Map<StaleRowKind, Date>([
    // Tokens first: a session then goes with the few it still has.
    ["rotated_refresh_tokens", before(DAY_MS)],
    ["ended_sessions", before(3 * DAY_MS)],
  ]);
  if (sessions.timeboxSeconds !== null) {
    cutoffs.set("timeboxed_sessions", before(sessions.timeboxSeconds * 1000 + DAY_MS));
  }
  if (sessions.inactivityTimeoutSeconds !== null) {
    cutoffs.set("inactive_sessions", before(sessions.inactivityTimeoutSeconds * 1000 + DAY_MS));
  }
  cutoffs.set("one_time_tokens", before(Math.max(otp.emailOtpExpSeconds, otp.smsOtpExpSeconds) * 1000 + DAY_MS));
  for (const kind of [
    "flow_states",
    "oauth_flows",
    "saml_relay_states",
    "mfa_challenges",
    "unverified_factors",
  ] as const) {
    cutoffs.set(kind, before(DAY_MS));
  }
  for (const kind of ["oauth_authorizations", "webauthn_challenges", "used_id_tokens"] as const) {
    cutoffs.set(kind, now);
  }
  cutoffs.set("finished_outbox", before(cleanup.outboxRetentionSeconds * 1000));
  if (signup.anonymousEnabled) cutoffs.set("anonymous_users", before(30 * DAY_MS));
  return cutoffs;
}

export interface CleanUpOptions {
  /** Rows per statement: small, so that no statement holds much or runs long. */
  readonly batchSize: number;
  /** Statements per kind in one pass; a kind with more to go says so (`more`), and the next pass goes on. */
  readonly batchesPerKind: number;
  /**
   * After each statement, a pause of this many times the time it took, so that a backlog taken at full speed holds
   * at most 1 / (1 + pause) of one connection, and the requests beside it keep the rest of the database. 0 or
   * absent: none.
   */
  readonly pause?: number;
  /** Asked before each statement: once true, the pass ends there (the server is shutting down). */
  readonly stopping?: () => boolean;
}

export interface CleanUpPass {
  /** Rows deleted, by kind (kinds with none left out). */
  readonly deleted: Partial<Record<StaleRowKind, number>>;
  /** Whether some kind stopped at `batchesPerKind` with rows maybe left: another pass should follow soon. */
  readonly more: boolean;
}

/**
 * One pass of the clean-up (DB_CLEANUP_ENABLED): for each kind of stale row, deletes in small batches, each its own
 * statement, skipping rows in use, so that any number of instances may run it at once and share the work.
 */
export async function cleanUpStaleRows(deps: Deps, options: CleanUpOptions): Promise<CleanUpPass> {
  const deleted: Partial<Record<StaleRowKind, number>> = {};
  let more = false;
  for (const [kind, cutoff] of staleCutoffs(deps.policy, deps.clock.now())) {
    let count = 0;
    let full = false;
    for (let batch = 0; batch < options.batchesPerKind; batch++) {
      if (options.stopping?.()) return { deleted, more: false };
      const started = deps.clock.now().getTime();
      const rows = await deps.stores.staleRows.deleteStale(kind, cutoff, options.batchSize);
      if (options.pause) await deps.clock.sleep((deps.clock.now().getTime() - started) * options.pause);
      count += rows;
      full = rows === options.batchSize;
      if (!full) break;
    }
    more ||= full;
    if (count === 0) continue;
    deleted[kind] = count;
    deps.events.record({ kind: "stale_rows_deleted", rows: kind, count });
  }
  return { deleted, more };
}
