export {
  connectRedis,
  createRedisRateLimiter,
  DEFAULT_RATE_LIMIT_PREFIX,
  type RedisConnectionEvents,
  redisAddress,
} from "./redis-rate-limiter.ts";
