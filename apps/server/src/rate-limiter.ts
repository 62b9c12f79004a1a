import type { RateLimiter } from "@latchkey/domain";
import type { Logger } from "pino";
import { createMemoryRateLimiter } from "./adapters/memory-rate-limiter.ts";
import { connectRedis, createRedisRateLimiter } from "./adapters/redis-rate-limiter.ts";
import type { Config } from "./config/index.ts";

/**
 * Redis when REDIS_URL is set, so that limits hold across every instance; this process's memory otherwise, which
 * is right for one instance and is said at start for several.
 */
export function createRateLimiter(config: Config, log: Logger): { limiter: RateLimiter; close(): Promise<void> } {
  if (config.rateLimit.redisUrl) {
    const redis = connectRedis(config.rateLimit.redisUrl, (error) => log.warn({ err: error }, "rate limiter: Redis connection error"));
    return { limiter: createRedisRateLimiter(redis), close: async () => void (await redis.quit().catch(() => redis.disconnect())) };
  }
  const memory = createMemoryRateLimiter();
  return { limiter: memory, close: async () => memory.stop() };
}
