export { connectRedis, createRedisRateLimiter, DEFAULT_RATE_LIMIT_PREFIX } from "./redis-rate-limiter.ts";
