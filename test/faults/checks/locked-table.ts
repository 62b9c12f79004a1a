import { setTimeout as sleep } from "node:timers/promises";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startPostgresCluster } from "../support/cluster.ts";
import {
  call,
  createConfirmedUser,
  describe as describeOutcome,
  expectNone,
  latencies,
  signIn,
  signUp,
  tally,
} from "../support/load.ts";
import { lockUsersTable } from "../support/locks.ts";
import { startMailSink } from "../support/mail.ts";
import { faultSuiteUnavailable } from "../support/requirements.ts";
import { startServer } from "../support/server.ts";

const DEADLINE_SECONDS = 3;
const LOCKER = "faults-locker";

describeIfAvailable(faultSuiteUnavailable, "a table locked by another session", () => {
  it("ends the requests that need it at their deadline with 504, and frees their connections", async () => {
    const cluster = await startPostgresCluster();
    const sink = await startMailSink();
    const server = await startServer({
      databaseUrl: cluster.url,
      smtpPort: sink.port,
      // Fewer connections than stuck requests: a request past its deadline must give its connection back.
      env: { AUTH_API_MAX_REQUEST_DURATION: String(DEADLINE_SECONDS), AUTH_DB_MAX_POOL_SIZE: "4" },
    });
    await createConfirmedUser(server.url, "member@example.com");

    // A migration or an operator's transaction: ACCESS EXCLUSIVE on users, held for up to 60 s.
    const locker = await lockUsersTable(cluster, LOCKER);

    // 10 requests that need users (5 sign-ups, 5 sign-ins), at once; the client gives up after 10 s.
    const stuck = Promise.all([
      ...Array.from({ length: 5 }, (_, i) => signUp(server.url, `locked-${i}@example.com`, 10_000)),
      ...Array.from({ length: 5 }, () => signIn(server.url, "member@example.com", 10_000)),
    ]);
    // Meanwhile, requests that need no table are answered at once.
    await sleep(1000);
    const unaffected = await Promise.all([
      call(server.url, "/health", { timeoutMs: 5000 }),
      call(server.url, "/settings", { timeoutMs: 5000 }),
    ]);
    const outcomes = await stuck;
    // Past the deadline, with the lock still held, no statement of the server's still waits for it.
    await sleep(1000);
    const waiting = cluster.query(
      `select pid, regexp_replace(left(query, 80), '\\s+', ' ', 'g') from pg_stat_activity
        where wait_event_type = 'Lock' and application_name <> '${LOCKER}'`,
    );
    locker.release();
    await locker.ended;
    const after = await Promise.all([
      signUp(server.url, "after-the-lock@example.com", 10_000),
      signIn(server.url, "member@example.com", 10_000),
    ]);

    // What PostgreSQL cancelled, and when: each statement the deadline ended shows here.
    const cancelled = cluster
      .logTail(200_000)
      .split("\n")
      .filter((line) => line.includes("canceling statement"))
      .map((line) => line.replace(/^\S+ (\S+) UTC \[\d+\] ERROR: +/, "$1 "));
    const report = [
      `while locked: ${tally(outcomes)} (${latencies(outcomes)})`,
      `statements PostgreSQL cancelled: ${cancelled.length}${cancelled.length ? `\n${cancelled.map((line) => `  ${line}`).join("\n")}` : ""}`,
      `unaffected: ${unaffected.map(describeOutcome).join("; ")}`,
      `still waiting on the lock after the deadline: ${waiting.length}`,
      `after the lock: ${after.map(describeOutcome).join("; ")}`,
    ].join("\n");
    console.info(`locked users table, API_MAX_REQUEST_DURATION=${DEADLINE_SECONDS}:\n${report}`);

    expectNone(
      outcomes.filter((o) => o.status !== 504 || o.errorCode !== "request_timeout"),
      "requests not ended with 504 request_timeout",
      report,
    );
    // At the deadline, give or take a second (a request also waits its turn for a connection within it).
    expectNone(
      outcomes.filter((o) => o.ms < (DEADLINE_SECONDS - 0.5) * 1000 || o.ms > (DEADLINE_SECONDS + 1.5) * 1000),
      `requests that did not end ${DEADLINE_SECONDS} s (-0.5 s, +1.5 s) after they were sent`,
      report,
    );
    expectNone(
      unaffected.filter((o) => o.status !== 200 || o.ms > 1000),
      "requests needing no table, slowed or failed",
    );
    expect
      .soft(
        waiting.map((row) => row.join(" ")),
        "server statements still waiting for the lock after their deadline",
      )
      .toEqual([]);
    expectNone(
      after.filter((o) => o.status !== 200 || o.ms > 2000),
      "requests after the lock is released failed or were slow (connections not given back?)",
      report,
    );
  });
});
