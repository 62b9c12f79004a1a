import type { RateLimiter } from "@latchkey/domain";

export interface FallbackEvents {
  /** The shared limiter failed and the fallback took over; told once per outage. */
  onFallback(error: unknown): void;
  /** The shared limiter answered again after an outage. */
  onRecovered(): void;
}

export interface FallbackOptions {
  /** While the shared limiter is down, how long between attempts to use it again. */
  readonly retryAfterMs?: number;
  readonly now?: () => number;
}

/** A limiter that can be told the shared store is back, so that the next request uses it at once. */
export interface FallbackRateLimiter extends RateLimiter {
  /** The shared store answers again (its client reconnected): the next request tries it without waiting. */
  retrySharedNow(): void;
}

/** A Redis that stops answering costs its command timeout per attempt: made once per this, not per request. */
const DEFAULT_RETRY_AFTER_MS = 5_000;

/**
 * Counts in `shared` (Redis) and, while it fails, in `local` (this process's memory). An outage of the shared
 * store then neither turns every request that counts into a 500 nor lifts the limits: each instance keeps
 * limiting on its own until the shared store is back. During an outage only one request in each retry period
 * tries the shared store, so a store that hangs rather than refuses slows almost nothing.
 *
 * It lives with the composition root, not in an adapter package: it joins two adapters (Redis and memory), and
 * which limiter stands in for which is the deployment's choice (docs/architecture.md).
 */
export function createFallbackRateLimiter(
  shared: RateLimiter,
  local: RateLimiter,
  events: FallbackEvents,
  options: FallbackOptions = {},
): FallbackRateLimiter {
  const retryAfterMs = options.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
  const now = options.now ?? Date.now;
  let degraded = false;
  let retryAt = 0;
  const either = async <T>(use: (limiter: RateLimiter) => Promise<T>): Promise<T> => {
    if (degraded && now() < retryAt) return use(local);
    try {
      // Claimed before the attempt, so concurrent requests do not all wait on the same probe.
      retryAt = now() + retryAfterMs;
      const decision = await use(shared);
      if (degraded) {
        degraded = false;
        events.onRecovered();
      }
      return decision;
    } catch (error) {
      if (!degraded) {
        degraded = true;
        events.onFallback(error);
      }
      retryAt = now() + retryAfterMs;
      return use(local);
    }
  };
  return {
    consume: (key, limit, windowSeconds) => either((limiter) => limiter.consume(key, limit, windowSeconds)),
    peek: (key, limit) => either((limiter) => limiter.peek(key, limit)),
    counted: (key) => either((limiter) => limiter.counted(key)),
    reset: (keys) => either((limiter) => limiter.reset(keys)),
    refund: (key) => either((limiter) => limiter.refund(key)),
    retrySharedNow: () => {
      retryAt = 0;
    },
  };
}
