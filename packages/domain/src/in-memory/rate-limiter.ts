import type { Clock } from "../ports/clock.ts";
import type { RateLimiter } from "../ports/rate-limiter.ts";

/** How often, in the clock's time, windows that have ended are dropped. */
const SWEEP_MILLISECONDS = 60_000;

/**
 * Fixed windows in a Map, timed by the given clock: the limiter of a single instance without Redis (limits then
 * hold per process, which the server says at start when it runs several), the stand-in while Redis is down, and
 * the tests'. Ended windows are swept as time passes, so a stream of distinct keys cannot grow the map for ever;
 * the sweep runs inside a call rather than on a timer, so there is nothing to stop.
 */
export function createInMemoryRateLimiter(
  clock: Pick<Clock, "now">,
): RateLimiter & { readonly openWindows: () => number } {
  const windows = new Map<string, { count: number; endsAt: number }>();
  let nextSweep = clock.now().getTime() + SWEEP_MILLISECONDS;
  const sweep = (now: number) => {
    if (now < nextSweep) return;
    nextSweep = now + SWEEP_MILLISECONDS;
    for (const [key, window] of windows) if (window.endsAt <= now) windows.delete(key);
  };
  const refusal = (endsAt: number, now: number) => ({
    allowed: false as const,
    retryAfterSeconds: Math.max(1, Math.ceil((endsAt - now) / 1000)),
  });
  return {
    async consume(key, limit, windowSeconds) {
      const now = clock.now().getTime();
      sweep(now);
      let window = windows.get(key);
      if (!window || window.endsAt <= now) {
        window = { count: 0, endsAt: now + windowSeconds * 1000 };
        windows.set(key, window);
      }
      window.count++;
      return window.count <= limit ? { allowed: true } : refusal(window.endsAt, now);
    },
    async peek(key, limit) {
      const now = clock.now().getTime();
      const window = windows.get(key);
      if (!window || window.endsAt <= now || window.count < limit) return { allowed: true };
      return refusal(window.endsAt, now);
    },
    async counted(key) {
      const now = clock.now().getTime();
      const window = windows.get(key);
      if (!window || window.endsAt <= now || window.count === 0) return { events: 0, secondsLeft: 0 };
      return { events: window.count, secondsLeft: refusal(window.endsAt, now).retryAfterSeconds };
    },
    async reset(keys) {
      for (const key of keys) windows.delete(key);
    },
    async refund(key) {
      const window = windows.get(key);
      if (window && window.endsAt > clock.now().getTime() && window.count > 0) window.count--;
    },
    openWindows: () => windows.size,
  };
}
