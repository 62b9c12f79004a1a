import { setTimeout as sleep } from "node:timers/promises";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startPostgresCluster } from "../support/cluster.ts";
import {
  call,
  describe as describeOutcome,
  expectNone,
  latencies,
  type Outcome,
  signUp,
  startLoad,
  tally,
} from "../support/load.ts";
import { startMailSink } from "../support/mail.ts";
import { faultSuiteUnavailable } from "../support/requirements.ts";
import { startServer } from "../support/server.ts";

/** How long writes must take to come back once the database is writable again. */
const RECOVERY_MS = 2_000;

describeIfAvailable(faultSuiteUnavailable, "the database made read-only, then writable, under sign-ups", () => {
  it("answers 503 and says so in /ready while it is read-only, and writes again within 2 s of its return", async () => {
    const cluster = await startPostgresCluster();
    const sink = await startMailSink();
    // A pool as small as the load: every connection stays busy, so none is ever closed for being idle.
    const server = await startServer({
      databaseUrl: cluster.url,
      smtpPort: sink.port,
      env: { AUTH_DB_MAX_POOL_SIZE: "4" },
    });

    // 4 clients signing up, one request at a time each, 50 ms apart: every one a write.
    const load = startLoad({
      workers: 4,
      maxRequests: 4000,
      pauseMs: 50,
      task: (_worker, n) => signUp(server.url, `ro-${n}@example.com`, 10_000),
    });
    const startedBetween = (from: number, to: number) =>
      load.outcomes().filter((o) => o.startedAt >= from && o.startedAt < to);

    await sleep(1500);
    // A failover that leaves the pool on the old primary, as some managed services do it: new sessions are
    // read-only, and the ones open are ended so that the pool reconnects into it.
    const readOnlyAt = Date.now();
    cluster.query("alter database latchkey set default_transaction_read_only = on");
    cluster.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where datname = 'latchkey' and pid <> pg_backend_pid()",
    );
    await sleep(2000);
    const readyWhileReadOnly = await call(server.url, "/ready", { timeoutMs: 5000 });
    await sleep(1000);
    const writableAt = Date.now();
    // This session is read-only too, as every new one is.
    cluster.query("set transaction read write; alter database latchkey reset default_transaction_read_only");
    await sleep(RECOVERY_MS);
    const readyAfter = await call(server.url, "/ready", { timeoutMs: 5000 });
    await sleep(3000);
    const outcomes = await load.stop();
    const endedAt = Date.now();

    const before = outcomes.filter((o) => o.startedAt + o.ms < readOnlyAt);
    // From a second after the switch, and answered before the database took writes again: requests under way as
    // either switch happened may have run their write on either side of it.
    const readOnly = startedBetween(readOnlyAt + 1000, writableAt).filter((o) => o.startedAt + o.ms < writableAt);
    const after = startedBetween(writableAt, endedAt);
    const failedAfter = after.filter((o) => o.status !== 200);
    const lastFailure = failedAfter.at(-1);
    const recovered =
      lastFailure === undefined
        ? "at once (no write failed once it was writable)"
        : lastFailure === after.at(-1)
          ? `not within the ${endedAt - writableAt} ms watched`
          : `${lastFailure.startedAt + lastFailure.ms - writableAt} ms after, when its last failure was answered`;
    const phases: [string, Outcome[]][] = [
      ["before", before],
      ["read-only", readOnly],
      ["writable again", after],
    ];
    const report = [
      ...phases.map(([name, each]) => `${name}: ${tally(each)} (${latencies(each)})`),
      `writes recovered: ${recovered}`,
      `GET /ready while read-only: ${describeOutcome(readyWhileReadOnly)} ${JSON.stringify(readyWhileReadOnly.body)}`,
      `GET /ready ${RECOVERY_MS} ms after: ${describeOutcome(readyAfter)} ${JSON.stringify(readyAfter.body)}`,
    ].join("\n");
    console.info(`read-only database:\n${report}`);

    expectNone(
      before.filter((o) => o.status !== 200),
      "failures before the switch",
      report,
    );
    // Clean answers meanwhile: 503 with Retry-After, never a 500.
    expectNone(
      readOnly.filter((o) => o.status !== 503 || o.errorCode !== "service_unavailable" || !o.retryAfter),
      "answers while read-only other than 503 service_unavailable with Retry-After",
      report,
    );
    expect.soft(readyWhileReadOnly.status, `GET /ready while read-only\n${report}`).toBe(503);
    expect.soft(readyWhileReadOnly.body, `GET /ready while read-only\n${report}`).toMatchObject({
      database: "unavailable",
    });
    // Without restarting anything: writes succeed again within RECOVERY_MS of the database's return.
    expectNone(
      failedAfter.filter((o) => o.startedAt >= writableAt + RECOVERY_MS),
      `failures starting more than ${RECOVERY_MS} ms after the database is writable again`,
      report,
    );
    expect.soft(after.filter((o) => o.status === 200).length, `successes once writable\n${report}`).toBeGreaterThan(0);
    expect.soft(readyAfter.status, `GET /ready once writable\n${report}`).toBe(200);
  });
});
