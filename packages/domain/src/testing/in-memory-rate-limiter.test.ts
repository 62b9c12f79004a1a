import { describeRateLimiterContract } from "./contracts/rate-limiter-contract.ts";
import { createInMemoryRateLimiter } from "./in-memory-rate-limiter.ts";
import { TestClock } from "./test-clock.ts";

describeRateLimiterContract("in-memory", async () => {
  const clock = new TestClock();
  return { limiter: createInMemoryRateLimiter(clock), advance: async (seconds) => clock.advance({ seconds }) };
});
