import type { Clock } from "../ports/clock.ts";
import type { RateLimiter } from "../ports/rate-limiter.ts";

/** Fixed windows in a Map, timed by the given clock: what a single process without Redis uses, and tests. */
export function createInMemoryRateLimiter(clock: Clock): RateLimiter {
  const windows = new Map<string, { count: number; endsAt: number }>();
  return {
    async consume(key, limit, windowSeconds) {
      const now = clock.now().getTime();
      let window = windows.get(key);
      if (!window || window.endsAt <= now) {
        window = { count: 0, endsAt: now + windowSeconds * 1000 };
        windows.set(key, window);
      }
      window.count++;
      if (window.count <= limit) return { allowed: true };
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)) };
    },
    async peek(key, limit) {
      const now = clock.now().getTime();
      const window = windows.get(key);
      if (!window || window.endsAt <= now || window.count < limit) return { allowed: true };
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)) };
    },
  };
}
