import type { RateLimiter } from "@latchkey/domain";
import { createInMemoryRateLimiter } from "@latchkey/domain/in-memory";
import type { Logger } from "pino";
import type { Config } from "../config/index.ts";
import { createFallbackRateLimiter } from "./fallback-rate-limiter.ts";

/**
 * Redis when REDIS_URL is set, so that limits hold across every instance, with this process's memory standing in
 * while Redis cannot be reached; this process's memory otherwise, which is right for one instance and is said at
 * start for several. ioredis is loaded only when Redis is configured: a single instance does without its memory.
 */
export async function createRateLimiter(
  config: Config,
  log: Logger,
): Promise<{ limiter: RateLimiter; close(): Promise<void> }> {
  const memory = createInMemoryRateLimiter({ now: () => new Date() });
  if (config.rateLimit.redisUrl) {
    const { connectRedis, createRedisRateLimiter, DEFAULT_RATE_LIMIT_PREFIX } = await import(
      "@latchkey/adapters-redis"
    );
    const redis = connectRedis(config.rateLimit.redisUrl, (error) =>
      log.warn({ err: error }, "rate limiter: Redis connection error"),
    );
    // Deployments that share a Redis but not their tables (DB_NAMESPACE) must not share their counters either.
    const prefix = `${DEFAULT_RATE_LIMIT_PREFIX}${config.db.namespace}`;
    const limiter = createFallbackRateLimiter(createRedisRateLimiter(redis, { prefix }), memory, {
      onFallback: (error) =>
        log.error({ err: error }, "rate limiter: Redis failed; limiting in this instance's memory until it is back"),
      onRecovered: () => log.info("rate limiter: Redis answers again; limits are shared across instances once more"),
    });
    return {
      limiter,
      close: async () => {
        await redis.quit().catch(() => redis.disconnect());
      },
    };
  }
  return { limiter: memory, close: async () => {} };
}
