import { missingRedisServerProgram, startThrowawayRedis } from "@latchkey/adapters-redis/testing";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startTestServer } from "../support/start-test-server.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describeIfAvailable(missingRedisServerProgram, "a Redis outage", () => {
  it("is logged once when it starts and once when it ends, is reported by /ready, and keeps limiting", async () => {
    const redis = await startThrowawayRedis();
    const server = await startTestServer({ AUTH_REDIS_URL: redis.url });
    // An operator who would rather take instances out during a Redis outage (limits shared or none) says so.
    const counting = await startTestServer({ AUTH_REDIS_URL: redis.url, AUTH_API_READINESS_DEPENDENCIES: "redis" });
    const address = new URL(redis.url).host;
    const redisLines = () => server.logLines().filter((line) => String(line["msg"]).startsWith("rate limiter: Redis"));
    const ready = async (of = server) => {
      const answer = await of.fetch("/ready");
      return { status: answer.status, body: await answer.json() };
    };
    const recover = (email: string) => server.fetch("/recover", { method: "POST", json: { email } });
    try {
      expect(await ready()).toEqual({ status: 200, body: { database: "ok", redis: "ok", smtp: "ok" } });
      expect(await ready(counting)).toEqual({ status: 200, body: { database: "ok", redis: "ok", smtp: "ok" } });

      await redis.kill();
      // ioredis tries again every 50 ms at first, then every 2 s: a dozen failed attempts, and requests that count.
      for (let second = 0; second < 6; second++) {
        await recover(`during-${second}@example.com`);
        await sleep(1_000);
      }
      // The instance serves, with limits in its memory: ready, unless Redis was made to count.
      expect(await ready()).toEqual({ status: 200, body: { database: "ok", redis: "unavailable", smtp: "ok" } });
      expect(await ready(counting)).toEqual({
        status: 503,
        body: { database: "ok", redis: "unavailable", smtp: "ok" },
      });
      // Limits hold in this instance's memory meanwhile: one recovery mail a minute per address.
      expect((await recover("offline@example.com")).status).toBe(200);
      expect((await recover("offline@example.com")).status).toBe(429);

      expect(redisLines()).toHaveLength(1);
      expect(redisLines()[0]).toMatchObject({
        level: 40,
        redis: address,
        // Whichever noticed first: the client's reconnection, or a request's command.
        error: expect.stringMatching(
          new RegExp(`^connect ECONNREFUSED ${address}$|Redis did not answer: not connected$`),
        ),
      });
      expect(redisLines()[0]?.["msg"]).toContain("in this instance's memory");
      expect(server.logText()).not.toContain("    at ");

      await redis.start();
      await expect.poll(() => redisLines().length, { timeout: 5_000 }).toBe(2);
      const back = redisLines()[1]!;
      expect(back).toMatchObject({ level: 30, redis: address });
      expect(back["down_ms"]).toBeGreaterThan(6_000);
      expect(back["msg"]).toMatch(/answers again after \d+\.\d s/);
      expect(await ready()).toEqual({ status: 200, body: { database: "ok", redis: "ok", smtp: "ok" } });
      expect(await ready(counting)).toEqual({ status: 200, body: { database: "ok", redis: "ok", smtp: "ok" } });
      // Counting in Redis again at once, not in memory: its counters were lost with it, so the address starts afresh.
      expect((await recover("offline@example.com")).status).toBe(200);
      await sleep(2_000);
      expect(redisLines()).toHaveLength(2);
    } finally {
      await server.close();
      await counting.close();
      await redis.stop();
    }
  }, 30_000);
});
