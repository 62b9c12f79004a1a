export { testRedisUrl } from "./test-redis.ts";
