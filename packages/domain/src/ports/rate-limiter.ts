export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

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
}
