import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Every request's deadline: API_MAX_REQUEST_DURATION after the server starts handling it (its headers have arrived;
 * its body is read within it). The database reads it as each statement starts and gives the statement what is left
 * (PostgresOptions.timeouts), so that PostgreSQL, not a timer here, ends work that overruns: a request is never told
 * it failed while its write may still commit.
 */
export interface RequestDeadlines {
  /** Runs the handling of one request (the HTTP app's `withinDeadline`) with its deadline set. */
  readonly within: (handle: () => Promise<void>) => Promise<void>;
  /** The deadline (ms since the epoch) of the request being handled; undefined outside one (the outbox worker). */
  readonly current: () => number | undefined;
}

export function createRequestDeadlines(maxDurationSeconds: number): RequestDeadlines {
  const deadlines = new AsyncLocalStorage<number>();
  const durationMs = maxDurationSeconds * 1000;
  return {
    within: (handle) => deadlines.run(Date.now() + durationMs, handle),
    current: () => deadlines.getStore(),
  };
}
