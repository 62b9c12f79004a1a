export { testRedisUrl } from "./test-redis.ts";
export { hasRedisServer, startThrowawayRedis, type ThrowawayRedis } from "./throwaway-redis.ts";
