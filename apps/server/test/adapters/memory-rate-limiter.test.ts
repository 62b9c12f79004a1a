import { describeRateLimiterContract } from "@latchkey/domain/testing";
import { createMemoryRateLimiter } from "../../src/adapters/memory-rate-limiter.ts";

describeRateLimiterContract("memory", async () => {
  let offset = 0;
  const limiter = createMemoryRateLimiter(() => Date.now() + offset);
  return {
    limiter,
    advance: async (seconds) => {
      offset += seconds * 1000;
    },
    close: async () => limiter.stop(),
  };
});
