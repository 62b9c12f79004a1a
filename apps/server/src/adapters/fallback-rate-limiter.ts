import type { RateLimiter } from "@latchkey/domain";

export interface FallbackEvents {
  /** The shared limiter failed and the fallback took over; told once per outage. */
  onFallback(error: unknown): void;
  /** The shared limiter answered again after an outage. */
  onRecovered(): void;
}

/**
 * Counts in `shared` (Redis) and, while it fails, in `local` (this process's memory). An outage of the shared
 * store then neither turns every request that counts into a 500 nor lifts the limits: each instance keeps
 * limiting on its own until the shared store is back.
 */
export function createFallbackRateLimiter(shared: RateLimiter, local: RateLimiter, events: FallbackEvents): RateLimiter {
  let degraded = false;
  return {
    async consume(key, limit, windowSeconds) {
      try {
        const decision = await shared.consume(key, limit, windowSeconds);
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
        return local.consume(key, limit, windowSeconds);
      }
    },
  };
}
