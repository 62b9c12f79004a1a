import type { RateLimiter } from "@latchkey/domain";

/** How often windows that have ended are dropped, so a stream of distinct keys cannot grow the map for ever. */
const SWEEP_MILLISECONDS = 60_000;

/**
 * Fixed windows in this process's memory: the limiter when no REDIS_URL is set. Limits then hold per instance,
 * not across instances; a deployment of several instances should configure Redis.
 */
export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter & { stop(): void } {
  const windows = new Map<string, { count: number; endsAt: number }>();
  const sweep = setInterval(() => {
    const at = now();
    for (const [key, window] of windows) if (window.endsAt <= at) windows.delete(key);
  }, SWEEP_MILLISECONDS);
  sweep.unref();
  return {
    async consume(key, limit, windowSeconds) {
      const at = now();
      let window = windows.get(key);
      if (!window || window.endsAt <= at) {
        window = { count: 0, endsAt: at + windowSeconds * 1000 };
        windows.set(key, window);
      }
      window.count++;
      if (window.count <= limit) return { allowed: true };
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.endsAt - at) / 1000)) };
    },
    async peek(key, limit) {
      const at = now();
      const window = windows.get(key);
      if (!window || window.endsAt <= at || window.count < limit) return { allowed: true };
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.endsAt - at) / 1000)) };
    },
    stop: () => clearInterval(sweep),
  };
}
