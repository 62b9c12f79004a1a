export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

/** What a key's current window holds: no events and no seconds when none is open. */
export interface RateCount {
  readonly events: number;
  /** Whole seconds until the window ends, at least 1 while one is open. */
  readonly secondsLeft: number;
}

/**
 * Counts events under a key, shared by every instance when a shared store backs it. A window starts with the
 * first event under its key and lasts `windowSeconds`; with `limit` 1 that is "at most once per window".
 */
export interface RateLimiter {
  /** Counts one event and says whether it stays within `limit` for the current window. */
  consume(key: string, limit: number, windowSeconds: number): Promise<RateDecision>;
  /**
   * Says whether one more event under `key` would stay within `limit` in the current window, counting nothing:
   * for a limit that must refuse before the request is looked at but count only what the request then does.
   */
  peek(key: string, limit: number): Promise<RateDecision>;
  /**
   * What has been counted under `key` in its current window, counting nothing: for a caller that also needs to
   * know whether there is anything to `reset`.
   */
  counted(key: string): Promise<RateCount>;
  /** Forgets what was counted under each of `keys`, in one step: the next event under one starts a new window. */
  reset(keys: readonly string[]): Promise<void>;
  /**
   * Takes back one event counted under `key` in its current window, never below none, keeping the window's end:
   * for an attempt counted before it was looked at (so that concurrent attempts cannot all pass a check made
   * before any of them counted) that turned out to be no event of the limit's.
   */
  refund(key: string): Promise<void>;
}
