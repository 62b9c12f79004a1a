import { setTimeout as sleep } from "node:timers/promises";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startPostgresCluster } from "../support/cluster.ts";
import {
  createConfirmedUser,
  expectNone,
  latencies,
  type Outcome,
  signIn,
  signUp,
  startLoad,
  tally,
} from "../support/load.ts";
import { startMailSink } from "../support/mail.ts";
import { startRedis } from "../support/redis.ts";
import { faultSuiteUnavailable } from "../support/requirements.ts";
import { type ServerProcess, startServer } from "../support/server.ts";

/** The log lines that speak of Redis, written within [from, to). */
function redisLines(server: ServerProcess, from: number, to: number) {
  return server.logLines().filter((line) => {
    const at = Date.parse(String(line["time"]));
    return at >= from && at < to && /redis/i.test(JSON.stringify(line));
  });
}

const show = (lines: readonly Record<string, unknown>[]) =>
  lines.map((line) => `  - [${line["level"]}] ${line["msg"]}`).join("\n") || "  (none)";

describeIfAvailable(faultSuiteUnavailable, "Redis killed, then frozen, under sign-ups and sign-ins", () => {
  it("keeps answering every request, and logs each outage once", async () => {
    const cluster = await startPostgresCluster();
    const redis = await startRedis();
    const sink = await startMailSink();
    const server = await startServer({ databaseUrl: cluster.url, smtpPort: sink.port, redisUrl: redis.url });
    for (let i = 0; i < 2; i++) await createConfirmedUser(server.url, `member-${i}@example.com`);

    // Both routes count in Redis: /signup its per-client and mail limits, the password grant its per-client and
    // per-account limits. 4 clients, one request at a time each, 100 ms apart.
    const load = startLoad({
      workers: 4,
      maxRequests: 2000,
      pauseMs: 100,
      task: (worker, n) =>
        worker < 2
          ? signUp(server.url, `redis-${n}@example.com`, 15_000)
          : signIn(server.url, `member-${worker - 2}@example.com`, 15_000),
    });
    const between = (from: number, to: number) =>
      load.outcomes().filter((o) => o.startedAt >= from && o.startedAt < to);

    await sleep(1500);
    const killedAt = Date.now();
    await redis.kill();
    await sleep(6000);
    const restartedAt = Date.now();
    await redis.start();
    // Longer than the fallback's retry period (5 s): the shared counters are in use again before the freeze.
    await sleep(6000);
    const frozenAt = Date.now();
    redis.freeze();
    await sleep(6000);
    const thawedAt = Date.now();
    redis.thaw();
    // As long: a frozen Redis is noticed back at the next try of it, up to 5 s later.
    await sleep(6000);
    const outcomes = await load.stop();
    // The log is written in batches of at most 200 ms.
    await sleep(500);
    const endedAt = Date.now();

    const phases: [string, Outcome[]][] = [
      ["before", between(0, killedAt)],
      ["killed", between(killedAt, restartedAt)],
      ["restarted", between(restartedAt, frozenAt)],
      ["frozen", between(frozenAt, thawedAt)],
      ["thawed", between(thawedAt, endedAt)],
    ];
    const report = phases.map(([name, each]) => `${name}: ${tally(each)} (${latencies(each)})`).join("\n");
    const killedLines = redisLines(server, killedAt, restartedAt);
    const restartedLines = redisLines(server, restartedAt, frozenAt);
    const frozenLines = redisLines(server, frozenAt, thawedAt);
    const thawedLines = redisLines(server, thawedAt, endedAt);
    const log = [
      "log lines about Redis",
      `while killed:\n${show(killedLines)}`,
      `once restarted:\n${show(restartedLines)}`,
      `while frozen:\n${show(frozenLines)}`,
      `once thawed:\n${show(thawedLines)}`,
    ].join("\n");
    console.info(`Redis outages:\n${report}\n${log}`);

    expectNone(
      outcomes.filter((o) => o.status !== 200),
      "requests not answered 200",
      report,
    );
    // Killed, the connection is refused at once; frozen, a command waits for its timeout (1 s), and only one
    // request in each retry period tries Redis.
    expectNone(
      between(killedAt, restartedAt).filter((o) => o.ms > 2000),
      "requests over 2 s while Redis is down",
      report,
    );
    expectNone(
      between(frozenAt, thawedAt).filter((o) => o.ms > 3000),
      "requests over 3 s while Redis is frozen",
      report,
    );
    // One warning when an outage starts, not one per reconnection attempt.
    const warnings = (lines: readonly Record<string, unknown>[]) => lines.filter((line) => Number(line["level"]) >= 40);
    expect.soft(warnings(killedLines).length, `warnings while Redis is down\n${log}`).toBe(1);
    expect.soft(warnings(frozenLines).length, `warnings while Redis is frozen\n${log}`).toBe(1);
    expect.soft(killedLines.length, `lines while Redis is down\n${log}`).toBe(1);
    expect.soft(frozenLines.length, `lines while Redis is frozen\n${log}`).toBe(1);
    // And one line when each outage ends, at info.
    const infos = (lines: readonly Record<string, unknown>[]) => lines.map((line) => Number(line["level"]));
    expect.soft(infos(restartedLines), `lines once Redis is back\n${log}`).toEqual([30]);
    expect.soft(infos(thawedLines), `lines once Redis is thawed\n${log}`).toEqual([30]);
  });
});
