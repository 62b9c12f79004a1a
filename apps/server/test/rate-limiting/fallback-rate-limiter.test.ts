import type { RateLimiter } from "@latchkey/domain";
import { createInMemoryRateLimiter } from "@latchkey/domain/in-memory";
import { describe, expect, it } from "vitest";
import { createFallbackRateLimiter } from "../../src/rate-limiting/fallback-rate-limiter.ts";

/** A shared limiter that can be switched off, as Redis is during an outage; it counts the attempts made on it. */
function switchable(inner: RateLimiter) {
  const state = { down: false, attempts: 0 };
  const limiter: RateLimiter = {
    consume: (key, limit, windowSeconds) => {
      state.attempts++;
      return state.down
        ? Promise.reject(new Error("rate limiter: Redis did not answer"))
        : inner.consume(key, limit, windowSeconds);
    },
    peek: (key, limit) => {
      state.attempts++;
      return state.down ? Promise.reject(new Error("rate limiter: Redis did not answer")) : inner.peek(key, limit);
    },
    counted: (key) => {
      state.attempts++;
      return state.down ? Promise.reject(new Error("rate limiter: Redis did not answer")) : inner.counted(key);
    },
    reset: (keys) => {
      state.attempts++;
      return state.down ? Promise.reject(new Error("rate limiter: Redis did not answer")) : inner.reset(keys);
    },
    refund: (key) => {
      state.attempts++;
      return state.down ? Promise.reject(new Error("rate limiter: Redis did not answer")) : inner.refund(key);
    },
  };
  return { limiter, state };
}

function setup() {
  const sharedMemory = createInMemoryRateLimiter({ now: () => new Date() });
  const local = createInMemoryRateLimiter({ now: () => new Date() });
  const shared = switchable(sharedMemory);
  const told: string[] = [];
  let at = 1_000_000;
  const limiter = createFallbackRateLimiter(
    shared.limiter,
    local,
    {
      onFallback: (error) => told.push(`fallback: ${(error as Error).message}`),
      onRecovered: () => told.push("recovered"),
    },
    { retryAfterMs: 5_000, now: () => at },
  );
  const advance = (ms: number) => {
    at += ms;
  };
  return { limiter, shared, told, advance };
}

describe("fallback rate limiter", () => {
  it("limits in memory while the shared limiter fails, tells once per outage, and goes back when it answers", async () => {
    const { limiter, shared, told, advance } = setup();
    expect(await limiter.consume("k", 1, 60)).toEqual({ allowed: true });
    shared.state.down = true;
    expect(await limiter.consume("k", 1, 60)).toEqual({ allowed: true });
    expect(await limiter.consume("k", 1, 60)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    expect(told).toEqual(["fallback: rate limiter: Redis did not answer"]);

    shared.state.down = false;
    advance(5_000);
    expect(await limiter.consume("k", 1, 60)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    expect(await limiter.consume("other", 1, 60)).toEqual({ allowed: true });
    expect(told).toEqual(["fallback: rate limiter: Redis did not answer", "recovered"]);
  });

  it("tries the shared limiter only once per retry period during an outage, not on every request", async () => {
    const { limiter, shared, advance } = setup();
    shared.state.down = true;
    for (let i = 0; i < 10; i++) await limiter.consume(`k${i}`, 5, 60);
    expect(shared.state.attempts).toBe(1);
    advance(4_999);
    await limiter.consume("k", 5, 60);
    expect(shared.state.attempts).toBe(1);
    advance(1);
    await limiter.consume("k", 5, 60);
    expect(shared.state.attempts).toBe(2);
  });

  it("tries the shared limiter at the next request once told it is back, without waiting out the retry period", async () => {
    const { limiter, shared, told } = setup();
    shared.state.down = true;
    await limiter.consume("k", 5, 60);
    shared.state.down = false;
    await limiter.consume("k", 5, 60);
    expect(shared.state.attempts).toBe(1);
    limiter.retrySharedNow();
    await limiter.consume("k", 5, 60);
    expect(shared.state.attempts).toBe(2);
    expect(told).toEqual(["fallback: rate limiter: Redis did not answer", "recovered"]);
  });

  it("peeks in memory too while the shared limiter fails", async () => {
    const { limiter, shared } = setup();
    shared.state.down = true;
    expect(await limiter.consume("k", 1, 60)).toEqual({ allowed: true });
    expect(await limiter.peek("k", 1)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    expect(await limiter.peek("other", 1)).toEqual({ allowed: true });
  });

  it("reads and resets counts in memory too while the shared limiter fails", async () => {
    const { limiter, shared } = setup();
    shared.state.down = true;
    await limiter.consume("k", 5, 60);
    expect(await limiter.counted("k")).toEqual({ events: 1, secondsLeft: 60 });
    await limiter.reset(["k"]);
    expect(await limiter.counted("k")).toEqual({ events: 0, secondsLeft: 0 });
  });
});
