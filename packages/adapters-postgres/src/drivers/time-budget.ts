// How long database work may take. PostgreSQL ends what overruns (statement_timeout, lock_timeout): it cancels the
// statement and the transaction rolls back, so a request told it ran out of time never sees its write land later.
// Nothing here cuts a statement short from the client's side (pg's query_timeout would answer while the server
// goes on, and may commit).

/**
 * The work under way ran out of time before a statement could start: its deadline had passed, or no connection was
 * free before it. Nothing of it was sent to the database.
 */
export class DeadlinePassed extends Error {
  override readonly name = "DeadlinePassed";
}

export interface TimeBudgetOptions {
  /**
   * The longest a statement may run, or a lock or a connection be waited for, when no deadline says sooner: the
   * connections' own statement_timeout and lock_timeout. No limit when absent.
   */
  readonly timeoutMs?: number | undefined;
}

/** A transaction's deadline, and the statement_timeout its connection now applies. */
export interface TransactionClock {
  readonly deadlineAt: number;
  allowedMs: number;
}

export interface TimeBudget {
  /** The SET that gives a new connection its own timeouts (timeoutMs); none without timeoutMs. */
  readonly sessionSettings: string | undefined;
  /**
   * When work starting now must be done: `requested` (a request's deadline), else timeoutMs from now; undefined
   * without either.
   */
  deadlineAt(requested?: number): number | undefined;
  /** Milliseconds left before `deadlineAt`; throws DeadlinePassed when there are none. */
  left(deadlineAt: number): number;
  /**
   * Whether a statement started now, under the connection's own timeouts, ends by `deadlineAt` give or take the
   * slack; if not, it needs a transaction of its own that sets what is left.
   */
  sessionFits(deadlineAt: number): boolean;
  /** What a transaction sets after BEGIN (nothing when the connection's own timeouts fit), and its clock. */
  begin(deadlineAt: number | undefined): { settings: string | undefined; clock: TransactionClock | undefined };
  /** What a migration's transaction sets after BEGIN: no timeout, as a schema change on a big table may take long. */
  readonly unbounded: string | undefined;
  /**
   * What a statement of the transaction must set first, when what is left has fallen well under what the connection
   * applies; throws DeadlinePassed when nothing is left, so the transaction rolls back.
   */
  beforeStatement(clock: TransactionClock): string | undefined;
}

/**
 * statement_timeout and lock_timeout of `ms` (0: none), for the session or the current transaction. The lock's is a
 * tenth shorter, so that a statement stuck behind a lock fails as such (55P03) rather than as slow (57014): the
 * log then says what to look for.
 */
export function timeoutSettings(scope: "SESSION" | "LOCAL", ms: number): string {
  const statement = ms === 0 ? 0 : Math.max(1, Math.ceil(ms));
  const lock = ms === 0 ? 0 : Math.max(1, Math.floor(statement * 0.9));
  return `SET ${scope} statement_timeout = ${statement}; SET ${scope} lock_timeout = ${lock}`;
}

export function createTimeBudget(options: TimeBudgetOptions): TimeBudget {
  const { timeoutMs } = options;
  if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new Error(`timeoutMs must be above 0: ${timeoutMs}`);
  const sessionMs = timeoutMs ?? Number.POSITIVE_INFINITY;
  // How far past its deadline a statement may end rather than cost a round trip more to set what is left: a tenth of
  // the bound. Nearly every statement starts well within it.
  const slackMs = timeoutMs === undefined ? 0 : timeoutMs / 10;

  const left = (deadlineAt: number) => {
    const ms = deadlineAt - Date.now();
    if (ms <= 0) throw new DeadlinePassed("the deadline passed before the statement could start");
    return ms;
  };

  return {
    sessionSettings: timeoutMs === undefined ? undefined : timeoutSettings("SESSION", timeoutMs),
    deadlineAt: (requested) => requested ?? (timeoutMs === undefined ? undefined : Date.now() + timeoutMs),
    left,
    sessionFits: (deadlineAt) => left(deadlineAt) >= sessionMs - slackMs,
    begin: (deadlineAt) => {
      if (deadlineAt === undefined) return { settings: undefined, clock: undefined };
      const ms = left(deadlineAt);
      return ms >= sessionMs - slackMs
        ? { settings: undefined, clock: { deadlineAt, allowedMs: sessionMs } }
        : { settings: timeoutSettings("LOCAL", ms), clock: { deadlineAt, allowedMs: ms } };
    },
    unbounded: timeoutMs === undefined ? undefined : timeoutSettings("LOCAL", 0),
    beforeStatement: (clock) => {
      const ms = left(clock.deadlineAt);
      if (ms >= clock.allowedMs - slackMs) return undefined;
      clock.allowedMs = ms;
      return timeoutSettings("LOCAL", ms);
    },
  };
}
