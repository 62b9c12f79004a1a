/**
 * What the clean-up removes (DB_CLEANUP_ENABLED), one kind of row at a time. Each is defined by one instant, the
 * kind's cutoff, which the clean-up use case works out from the clock and the policy:
 * - `rotated_refresh_tokens`: tokens whose child (the token they were rotated to) was created before the cutoff,
 *   never a session's current token; the child's `parentId` then names a token that is gone. Rotations are looked
 *   at once each, in the order of their child's (createdAt, id), the store keeping how far it got, so a batch reads
 *   only what it deletes: a token is written with the time it is written at (the import's too), so none appears
 *   behind one already looked at. A token never rotated goes with its session;
 * - `ended_sessions`: sessions whose `notAfter` is before the cutoff (with their refresh tokens);
 * - `timeboxed_sessions`: sessions created before the cutoff (SESSIONS_TIMEBOX);
 * - `inactive_sessions`: sessions last rotated (else created) before the cutoff (SESSIONS_INACTIVITY_TIMEOUT);
 * - `one_time_tokens`, `flow_states`, `oauth_flows`, `saml_relay_states`, `mfa_challenges`: created before the
 *   cutoff;
 * - `unverified_factors`: factors still unverified, created before the cutoff (with their challenges);
 * - `oauth_authorizations`, `webauthn_challenges`, `used_id_tokens`: expiring before the cutoff;
 * - `finished_outbox`: messages with nothing left to do (delivered, or given up), created before the cutoff;
 * - `anonymous_users`: anonymous users created before the cutoff, with everything that goes with a user.
 */
export type StaleRowKind =
  | "rotated_refresh_tokens"
  | "ended_sessions"
  | "timeboxed_sessions"
  | "inactive_sessions"
  | "one_time_tokens"
  | "flow_states"
  | "oauth_flows"
  | "saml_relay_states"
  | "mfa_challenges"
  | "unverified_factors"
  | "oauth_authorizations"
  | "webauthn_challenges"
  | "used_id_tokens"
  | "finished_outbox"
  | "anonymous_users";

export interface StaleRowStore {
  /**
   * Deletes at most `limit` rows of `kind` that `cutoff` makes stale, in one statement of its own, and returns how
   * many went. Rows another transaction holds are skipped, never waited for, so that instances cleaning at the same
   * time share the work, and a refresh or a sign-in never queues behind it.
   */
  deleteStale(kind: StaleRowKind, cutoff: Date, limit: number): Promise<number>;
}
