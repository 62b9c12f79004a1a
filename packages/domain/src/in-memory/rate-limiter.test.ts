import { describe, expect, it } from "vitest";
import { describeRateLimiterContract } from "../testing/contracts/rate-limiter-contract.ts";
import { TestClock } from "../testing/test-clock.ts";
import { createInMemoryRateLimiter } from "./rate-limiter.ts";

describeRateLimiterContract("in-memory", async () => {
  const clock = new TestClock();
  return { limiter: createInMemoryRateLimiter(clock), advance: async (seconds) => clock.advance({ seconds }) };
});

describe("in-memory rate limiter", () => {
  it("drops windows that have ended, so distinct keys do not pile up", async () => {
    const clock = new TestClock();
    const limiter = createInMemoryRateLimiter(clock);
    for (let i = 0; i < 100; i++) await limiter.consume(`ip:${i}`, 5, 10);
    expect(limiter.openWindows()).toBe(100);
    // Ended, but swept only once a minute has passed.
    clock.advance({ seconds: 30 });
    await limiter.consume("ip:0", 5, 10);
    expect(limiter.openWindows()).toBe(100);
    clock.advance({ seconds: 31 });
    await limiter.consume("ip:late", 5, 10);
    expect(limiter.openWindows()).toBe(1);
  });
});
