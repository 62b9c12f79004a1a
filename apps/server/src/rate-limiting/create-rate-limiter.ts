import type { RateLimiter } from "@latchkey/domain";
import { createInMemoryRateLimiter } from "@latchkey/domain/in-memory";
import type { Logger } from "pino";
import type { Config } from "../config/index.ts";
import { createOutageLog } from "../logging/outage-log.ts";
import { createFallbackRateLimiter } from "./fallback-rate-limiter.ts";

export interface ConfiguredRateLimiter {
  readonly limiter: RateLimiter;
  /** Resolves when Redis answers a PING, rejects when it does not; absent without REDIS_URL. For GET /ready. */
  readonly pingRedis: (() => Promise<void>) | undefined;
  close(): Promise<void>;
}

/**
 * Redis when REDIS_URL is set, so that limits hold across every instance, with this process's memory standing in
 * while Redis cannot be reached; this process's memory otherwise, which is right for one instance and is said at
 * start for several. ioredis is loaded only when Redis is configured: a single instance does without its memory.
 *
 * An outage is logged once when it starts and once when it ends, whether the client's reconnections or a failed
 * command (a Redis that hangs rather than refuses) notice it first.
 */
export async function createRateLimiter(config: Config, log: Logger): Promise<ConfiguredRateLimiter> {
  const memory = createInMemoryRateLimiter({ now: () => new Date() });
  if (config.rateLimit.redisUrl) {
    const { connectRedis, createRedisRateLimiter, DEFAULT_RATE_LIMIT_PREFIX, redisAddress } = await import(
      "@latchkey/adapters-redis"
    );
    const outage = createOutageLog(log, {
      fields: { redis: redisAddress(config.rateLimit.redisUrl) },
      downMessage:
        "rate limiter: Redis cannot be reached; limits are counted in this instance's memory until it is back",
      upMessage: (downFor) =>
        `rate limiter: Redis answers again after ${downFor}; limits are shared across instances once more`,
    });
    const redis = connectRedis(config.rateLimit.redisUrl, {
      onUnreachable: (error) => outage.down(error),
      onReachable: () => {
        outage.up();
        // Connecting takes a turn of the event loop at least: `limiter` is set by then.
        limiter.retrySharedNow();
      },
    });
    // Deployments that share a Redis but not their tables (DB_NAMESPACE) must not share their counters either.
    const prefix = `${DEFAULT_RATE_LIMIT_PREFIX}${config.db.namespace}`;
    const limiter = createFallbackRateLimiter(createRedisRateLimiter(redis, { prefix }), memory, {
      onFallback: (error) => outage.down(error),
      onRecovered: () => outage.up(),
    });
    return {
      limiter,
      pingRedis: async () => void (await redis.ping()),
      close: async () => {
        await redis.quit().catch(() => redis.disconnect());
      },
    };
  }
  return { limiter: memory, pingRedis: undefined, close: async () => {} };
}
