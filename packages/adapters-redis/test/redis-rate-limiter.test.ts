import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { connect as connectTcp, createServer, type Server, type Socket } from "node:net";
import { describeIfAvailable, describeRateLimiterContract } from "@latchkey/domain/testing";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectRedis,
  createRedisRateLimiter,
  DEFAULT_RATE_LIMIT_PREFIX,
  redisAddress,
} from "../src/redis-rate-limiter.ts";
import { missingRedisServerProgram, NO_TEST_REDIS, startThrowawayRedis, testRedisUrl } from "../src/testing/index.ts";

const TEST_REDIS_URL = await testRedisUrl();
const REDIS_URL = TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const missingRedis = TEST_REDIS_URL === undefined ? NO_TEST_REDIS : undefined;

// Every key this file writes starts with it, so runs and other users of the same Redis never meet.
const prefix = `latchkey-test:${randomBytes(4).toString("hex")}:`;

const quiet = { onUnreachable: () => undefined, onReachable: () => undefined };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A client of the test Redis, once it is ready (commands sent before that fail, by design). */
async function readyClient(url = REDIS_URL): Promise<Redis> {
  const redis = connectRedis(url, quiet);
  if (redis.status !== "ready") await once(redis, "ready");
  return redis;
}

describeIfAvailable(missingRedis, "a real Redis", () => {
  describeRateLimiterContract("redis", async () => {
    const redis = await readyClient();
    return {
      limiter: createRedisRateLimiter(redis, { prefix }),
      advance: (seconds) => sleep(seconds * 1000),
      close: async () => {
        await redis.quit();
      },
    };
  });
});

describeIfAvailable(missingRedis, "redis rate limiter", () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = await readyClient();
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  const aKey = () => `key:${randomBytes(4).toString("hex")}`;

  it("keeps its counters under the prefix, expiring with the window", async () => {
    const key = aKey();
    await createRedisRateLimiter(redis, { prefix }).consume(key, 5, 60);
    expect(await redis.get(`${prefix}${key}`)).toBe("1");
    expect(await redis.pttl(`${prefix}${key}`)).toBeGreaterThan(59_000);
    expect(await redis.exists(key)).toBe(0);
  });

  it("prefixes latchkey:ratelimit: by default", () => {
    expect(DEFAULT_RATE_LIMIT_PREFIX).toBe("latchkey:ratelimit:");
  });

  it("starts the window with the first event: later events do not extend it", async () => {
    const limiter = createRedisRateLimiter(redis, { prefix });
    const key = aKey();
    await limiter.consume(key, 5, 2);
    await sleep(400);
    await limiter.consume(key, 5, 2);
    expect(await redis.pttl(`${prefix}${key}`)).toBeLessThanOrEqual(1_600);
  });

  it("refuses with the whole seconds left, at least one", async () => {
    const limiter = createRedisRateLimiter(redis, { prefix });
    const key = aKey();
    await limiter.consume(key, 1, 60);
    expect(await limiter.consume(key, 1, 60)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    const short = aKey();
    await limiter.consume(short, 0, 0.2);
    expect(await limiter.consume(short, 0, 0.2)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it("gives an expiry to a counter found without one, rather than refusing its key forever", async () => {
    const key = aKey();
    await redis.set(`${prefix}${key}`, "7");
    expect(await createRedisRateLimiter(redis, { prefix }).consume(key, 10, 30)).toEqual({ allowed: true });
    expect(await redis.pttl(`${prefix}${key}`)).toBeGreaterThan(29_000);
  });

  it("works again after Redis forgot its script", async () => {
    const limiter = createRedisRateLimiter(redis, { prefix });
    const key = aKey();
    await limiter.consume(key, 5, 60);
    await redis.script("FLUSH");
    expect(await limiter.consume(key, 5, 60)).toEqual({ allowed: true });
    expect(await redis.get(`${prefix}${key}`)).toBe("2");
  });
});

describe("redis rate limiter without Redis", () => {
  it("rejects at once, with an error, when nothing listens, and keeps doing so", async () => {
    const errors: Error[] = [];
    const redis = connectRedis("redis://127.0.0.1:1", {
      onUnreachable: (error) => errors.push(error),
      onReachable: () => undefined,
    });
    try {
      const limiter = createRedisRateLimiter(redis, { prefix });
      await expectFastFailure(limiter.consume("key", 5, 60));
      // Later, between two reconnection attempts.
      await expect.poll(() => errors.length).toBeGreaterThan(0);
      await sleep(300);
      await expectFastFailure(limiter.consume("key", 5, 60));
      expect(errors[0]?.message).toMatch(/ECONNREFUSED/);
    } finally {
      redis.disconnect();
    }
  });

  it("rejects within the command timeout when Redis stops answering on an open connection", async (context) => {
    context.skip(missingRedis !== undefined, missingRedis);
    const proxy = await frozenProxy();
    const redis = connectRedis(`redis://127.0.0.1:${proxy.port}`, quiet);
    try {
      if (redis.status !== "ready") await once(redis, "ready");
      const limiter = createRedisRateLimiter(redis, { prefix });
      expect(await limiter.consume(`key:${randomBytes(4).toString("hex")}`, 5, 60)).toEqual({ allowed: true });
      proxy.freeze();
      await expectFastFailure(limiter.consume("key", 5, 60), /timed out/);
    } finally {
      redis.disconnect();
      await proxy.close();
    }
  });
});

describeIfAvailable(missingRedisServerProgram, "redis connection events", () => {
  it("tell once that Redis is unreachable, however many reconnections fail, and once that it is back", async () => {
    const server = await startThrowawayRedis();
    const told: string[] = [];
    const redis = connectRedis(server.url, {
      onUnreachable: (error) => told.push(`unreachable: ${error.message}`),
      onReachable: () => told.push("reachable"),
    });
    try {
      if (redis.status !== "ready") await once(redis, "ready");
      expect(told).toEqual([]);
      await server.kill();
      // ioredis retries every 50 ms at first, then up to every 2 s: a dozen attempts in this time.
      await sleep(4_000);
      expect(told).toEqual([`unreachable: connect ECONNREFUSED ${new URL(server.url).host}`]);
      await server.start();
      await expect.poll(() => told.length, { timeout: 5_000 }).toBe(2);
      expect(told[1]).toBe("reachable");
      expect(await redis.ping()).toBe("PONG");
    } finally {
      redis.disconnect();
      await server.stop();
    }
  }, 20_000);

  it("name where Redis is without its credentials", () => {
    expect(redisAddress("redis://user:secret@cache.internal:6380/2")).toBe("cache.internal:6380");
    expect(redisAddress("rediss://:secret@cache.internal")).toBe("cache.internal:6379");
    expect(redisAddress("not a url")).not.toContain("not a url");
  });
});

/** Expects `consume` to reject with an error well within 3 s. */
async function expectFastFailure(
  consume: Promise<unknown>,
  message: RegExp = /rate limiter: Redis did not answer/,
): Promise<void> {
  const started = Date.now();
  const error = await consume.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toMatch(message);
  expect(Date.now() - started).toBeLessThan(3_000);
}

/** A TCP proxy to the test Redis that can stop forwarding while keeping its connections open: a silent network. */
async function frozenProxy(): Promise<{ port: number; freeze(): void; close(): Promise<void> }> {
  const target = new URL(REDIS_URL);
  const sockets: Socket[] = [];
  let frozen = false;
  const server: Server = createServer((client) => {
    const upstream = connectTcp(Number(target.port || 6379), target.hostname);
    sockets.push(client, upstream);
    client.on("data", (chunk) => void (frozen || upstream.write(chunk)));
    upstream.on("data", (chunk) => void (frozen || client.write(chunk)));
    client.on("error", () => undefined);
    upstream.on("error", () => undefined);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no port");
  return {
    port: address.port,
    freeze: () => {
      frozen = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
