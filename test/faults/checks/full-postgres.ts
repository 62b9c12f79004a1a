import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startPostgresCluster } from "../support/cluster.ts";
import {
  createConfirmedUser,
  expectNone,
  latencies,
  type Outcome,
  refresh,
  sessionOf,
  signIn,
  tally,
} from "../support/load.ts";
import { startMailSink } from "../support/mail.ts";
import { faultSuiteUnavailable } from "../support/requirements.ts";
import { startServer } from "../support/server.ts";

const MAX_CONNECTIONS = 12;
const SESSIONS = 100;

describeIfAvailable(faultSuiteUnavailable, "a full PostgreSQL", () => {
  it("makes a burst of requests wait for a connection, then succeed", async () => {
    const cluster = await startPostgresCluster({ maxConnections: MAX_CONNECTIONS });
    const sink = await startMailSink();
    // Two instances with the pool unbounded (DB_MAX_POOL_SIZE=0, the default) on a cluster that takes 12
    // connections, 9 of them for the server's role: the burst asks for far more than PostgreSQL has.
    const env = { AUTH_DB_MAX_POOL_SIZE: "0", AUTH_API_MAX_REQUEST_DURATION: "15" };
    const first = await startServer({ databaseUrl: cluster.url, smtpPort: sink.port, env, name: "first" });
    const second = await startServer({ databaseUrl: cluster.url, smtpPort: sink.port, env, name: "second" });

    // 100 sessions to refresh, made a few at a time (20 users, 5 sessions each).
    const tokens: string[] = [];
    for (let user = 0; user < 20; user++) {
      const email = `crowd-${user}@example.com`;
      await createConfirmedUser(first.url, email);
      tokens.push(...(await Promise.all(Array.from({ length: 5 }, () => sessionOf(first.url, email)))));
    }

    // The burst: every session refreshed at once, half through each instance, with 20 password sign-ins.
    const started = Date.now();
    const outcomes: Outcome[] = await Promise.all([
      ...tokens.map((token, i) => refresh(i % 2 === 0 ? first.url : second.url, token, 30_000)),
      ...Array.from({ length: 20 }, (_, i) =>
        signIn(i % 2 === 0 ? first.url : second.url, `crowd-${i}@example.com`, 30_000),
      ),
    ]);
    const burstMs = Date.now() - started;
    const refused = cluster
      .logTail(200_000)
      .split("\n")
      .filter((line) => /too many clients|remaining connection slots are reserved/.test(line)).length;
    const peak = cluster.query("select count(*) from pg_stat_activity where backend_type = 'client backend'");
    const report = [
      `burst of ${SESSIONS} refreshes and 20 sign-ins over 2 instances, max_connections=${MAX_CONNECTIONS}: ${tally(outcomes)} (${latencies(outcomes)}), all done in ${burstMs} ms`,
      `PostgreSQL refused ${refused} connections for being full; ${peak[0]?.[0]} client connections now`,
    ].join("\n");
    console.info(`full PostgreSQL:\n${report}`);

    expectNone(
      outcomes.filter((o) => o.status !== 200),
      "requests of the burst that did not succeed",
      report,
    );
    // And the instances are sound afterwards.
    const after = await Promise.all([
      signIn(first.url, "crowd-0@example.com"),
      signIn(second.url, "crowd-1@example.com"),
    ]);
    expect
      .soft(
        after.map((o) => o.status),
        "sign-ins after the burst",
      )
      .toEqual([200, 200]);
  });
});
