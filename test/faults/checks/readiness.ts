import { setTimeout as sleep } from "node:timers/promises";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startPostgresCluster } from "../support/cluster.ts";
import {
  call,
  createConfirmedUser,
  describe as describeOutcome,
  expectNone,
  type Outcome,
  signIn,
  signUp,
  tally,
} from "../support/load.ts";
import { lockUsersTable } from "../support/locks.ts";
import { startMailSink } from "../support/mail.ts";
import { startRedis } from "../support/redis.ts";
import { faultSuiteUnavailable } from "../support/requirements.ts";
import { startServer } from "../support/server.ts";

const LOCKER = "faults-ready-locker";
/** Quick enough for a load balancer's probe, whose own timeout is often 1 s. */
const PROBE_MS = 1000;

const ready = (url: string) => call(url, "/ready", { timeoutMs: 5000 });
const shown = (outcomes: readonly Outcome[]) =>
  outcomes.map((o) => `  ${describeOutcome(o)} ${JSON.stringify(o.body)}`).join("\n");

describeIfAvailable(faultSuiteUnavailable, "GET /ready with Redis down, then a table locked", () => {
  it("stays 200 while the instance can serve, reporting Redis in its body, and answers at once", async () => {
    const cluster = await startPostgresCluster();
    const redis = await startRedis();
    const sink = await startMailSink();
    const server = await startServer({
      databaseUrl: cluster.url,
      smtpPort: sink.port,
      redisUrl: redis.url,
      // Fewer connections than stuck requests: the pool is busy while /ready is asked.
      env: { AUTH_API_MAX_REQUEST_DURATION: "3", AUTH_DB_MAX_POOL_SIZE: "4" },
    });
    await createConfirmedUser(server.url, "member@example.com");
    const healthy = await ready(server.url);

    // Redis down: requests are limited in this instance's memory, and served.
    await redis.kill();
    await sleep(1000);
    const redisDown: Outcome[] = [];
    for (let i = 0; i < 3; i++) redisDown.push(await ready(server.url));
    const servedWithoutRedis = await signIn(server.url, "member@example.com", 5000);
    await redis.start();

    // A table locked by another session, with more requests waiting on it than the pool has connections.
    const locker = await lockUsersTable(cluster, LOCKER);
    const stuck = Promise.all(Array.from({ length: 8 }, (_, i) => signUp(server.url, `locked-${i}@example.com`)));
    await sleep(500);
    const locked: Outcome[] = [];
    for (let i = 0; i < 3; i++) locked.push(await ready(server.url));
    const stuckOutcomes = await stuck;
    locker.release();
    await locker.ended;

    const report = [
      `healthy: ${describeOutcome(healthy)} ${JSON.stringify(healthy.body)}`,
      `Redis down:\n${shown(redisDown)}`,
      `a sign-in meanwhile: ${describeOutcome(servedWithoutRedis)}`,
      `users locked, the pool busy (${tally(stuckOutcomes)}):\n${shown(locked)}`,
    ].join("\n");
    console.info(`GET /ready:\n${report}`);

    expect.soft(healthy.status, report).toBe(200);
    expect.soft(healthy.body, report).toEqual({ database: "ok", redis: "ok", smtp: "ok" });
    expect.soft(servedWithoutRedis.status, `the instance serves without Redis\n${report}`).toBe(200);
    // Redis is reported, and does not fail readiness: the instance serves with limits in its memory.
    expectNone(
      redisDown.filter(
        (o) => o.status !== 200 || o.body?.redis !== "unavailable" || o.body?.database !== "ok" || o.ms > PROBE_MS,
      ),
      `/ready with Redis down: not 200 {"database":"ok","redis":"unavailable"} within ${PROBE_MS} ms`,
      report,
    );
    // The probe has a connection of its own: a busy pool does not make the database look down.
    expectNone(
      locked.filter((o) => o.status !== 200 || o.body?.database !== "ok" || o.ms > PROBE_MS),
      `/ready with a table locked and the pool busy: not 200 {"database":"ok"} within ${PROBE_MS} ms`,
      report,
    );
  });
});
