export { NO_TEST_REDIS, testRedisUrl } from "./test-redis.ts";
export { missingRedisServerProgram, startThrowawayRedis, type ThrowawayRedis } from "./throwaway-redis.ts";
