import type { RateLimiter } from "@latchkey/domain";
import { describe, expect, it } from "vitest";
import { createFallbackRateLimiter } from "../../src/adapters/fallback-rate-limiter.ts";
import { createMemoryRateLimiter } from "../../src/adapters/memory-rate-limiter.ts";

/** A shared limiter that can be switched off, as Redis is during an outage. */
function switchable(inner: RateLimiter) {
  const state = { down: false };
  const limiter: RateLimiter = {
    consume: (key, limit, windowSeconds) =>
      state.down ? Promise.reject(new Error("rate limiter: Redis did not answer")) : inner.consume(key, limit, windowSeconds),
  };
  return { limiter, state };
}

describe("fallback rate limiter", () => {
  it("limits in memory while the shared limiter fails, tells once per outage, and goes back when it answers", async () => {
    const sharedMemory = createMemoryRateLimiter();
    const local = createMemoryRateLimiter();
    const shared = switchable(sharedMemory);
    const told: string[] = [];
    const limiter = createFallbackRateLimiter(shared.limiter, local, {
      onFallback: (error) => told.push(`fallback: ${(error as Error).message}`),
      onRecovered: () => told.push("recovered"),
    });

    expect(await limiter.consume("k", 1, 60)).toEqual({ allowed: true });
    shared.state.down = true;
    expect(await limiter.consume("k", 1, 60)).toEqual({ allowed: true });
    expect(await limiter.consume("k", 1, 60)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    expect(told).toEqual(["fallback: rate limiter: Redis did not answer"]);

    shared.state.down = false;
    expect(await limiter.consume("k", 1, 60)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    expect(await limiter.consume("other", 1, 60)).toEqual({ allowed: true });
    expect(told).toEqual(["fallback: rate limiter: Redis did not answer", "recovered"]);
    sharedMemory.stop();
    local.stop();
  });
});
