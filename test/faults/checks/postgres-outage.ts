import { setTimeout as sleep } from "node:timers/promises";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startPostgresCluster } from "../support/cluster.ts";
import { duplicateMail, halfWritten, listed } from "../support/ledger.ts";
import {
  call,
  createConfirmedUser,
  describe as describeOutcome,
  expectNone,
  latencies,
  refresh,
  sessionOf,
  signUp,
  startLoad,
  tally,
} from "../support/load.ts";
import { startMailSink, waitForEveryMail } from "../support/mail.ts";
import { waitUntil } from "../support/processes.ts";
import { faultSuiteUnavailable } from "../support/requirements.ts";
import { startServer } from "../support/server.ts";

const SIGNUP_WORKERS = 4;
const REFRESH_WORKERS = 4;

describeIfAvailable(faultSuiteUnavailable, "PostgreSQL killed and restarted under sign-ups and refreshes", () => {
  it("answers clean 503s while it is down, recovers without a restart, and loses no user or mail", async () => {
    const cluster = await startPostgresCluster();
    const sink = await startMailSink();
    const server = await startServer({
      databaseUrl: cluster.url,
      smtpPort: sink.port,
      // A refresh whose answer was lost in the outage is retried with the same token: that is a retry, not a reuse.
      env: { AUTH_DB_MAX_POOL_SIZE: "10", AUTH_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: "120" },
    });
    const tokens: string[] = [];
    for (let i = 0; i < REFRESH_WORKERS; i++) {
      await createConfirmedUser(server.url, `refresher-${i}@example.com`);
      tokens.push(await sessionOf(server.url, `refresher-${i}@example.com`));
    }
    const pid = server.pid;

    // 8 clients, one request at a time each with 50 ms between: about 2 s of normal load, 3 s with PostgreSQL
    // down (immediate shutdown, as a crash), then its restart with crash recovery and 2 s more after recovery.
    const load = startLoad({
      workers: SIGNUP_WORKERS + REFRESH_WORKERS,
      maxRequests: 4000,
      pauseMs: 50,
      task: async (worker, n) => {
        if (worker < SIGNUP_WORKERS) return signUp(server.url, `pg-${n}@example.com`, 15_000);
        const index = worker - SIGNUP_WORKERS;
        const outcome = await refresh(server.url, tokens[index]!, 15_000);
        if (outcome.status === 200) tokens[index] = outcome.body.refresh_token;
        return outcome;
      },
    });
    const startedSince = (from: number) => load.outcomes().filter((outcome) => outcome.startedAt >= from);

    await sleep(2000);
    const killedAt = Date.now();
    await cluster.kill();
    const downAt = Date.now();
    await sleep(1000);
    const readyWhileDown = await call(server.url, "/ready", { timeoutMs: 10_000 });
    await sleep(2000);
    const restartedAt = Date.now();
    await cluster.start();
    const upAt = Date.now();

    // Both kinds of request succeed again, without restarting the server.
    const recovery = await waitUntil(
      "a sign-up and a refresh to succeed after PostgreSQL is back",
      () => {
        const after = startedSince(upAt);
        return (
          after.some((o) => o.status === 200 && o.what.startsWith("signup")) &&
          after.some((o) => o.status === 200 && o.what === "refresh")
        );
      },
      { timeoutMs: 15_000, explain: () => `since the restart: ${tally(startedSince(upAt))}` },
    ).catch((error: Error) => error);
    await sleep(2000);
    const outcomes = await load.stop();
    const readyAfter = await call(server.url, "/ready", { timeoutMs: 10_000 });

    const before = outcomes.filter((o) => o.startedAt + o.ms < killedAt);
    const down = outcomes.filter((o) => o.startedAt >= downAt && o.startedAt < restartedAt);
    const report = [
      `before the kill: ${tally(before)}`,
      `while down: ${tally(down)} (${latencies(down)})`,
      `after the restart: ${tally(outcomes.filter((o) => o.startedAt >= upAt))}`,
      `recovered: ${recovery instanceof Error ? recovery.message : `${recovery} ms after PostgreSQL accepted connections`}`,
    ].join("\n");
    console.info(`PostgreSQL outage:\n${report}`);

    // Clean answers: 200 or 503, never a 500 nor a dropped connection, and never a hang.
    expectNone(
      outcomes.filter((o) => o.status !== 200 && o.status !== 503),
      "answers neither 200 nor 503",
      report,
    );
    expectNone(
      outcomes.filter(
        (o) => o.status === 503 && (!o.retryAfter || !/unavailable/.test(o.errorCode ?? "") || !o.body?.msg),
      ),
      "503s without Retry-After, or without GoTrue's shape and an error_code that says unavailable",
    );
    expect.soft(down.filter((o) => o.status === 503).length, `503s while down\n${report}`).toBeGreaterThan(0);
    expectNone(
      down.filter((o) => o.ms > 5000),
      "answers while down that took over 5 s",
    );
    expectNone(
      before.filter((o) => o.status !== 200),
      "failures before the kill",
    );

    // Recovery, without restarting the server.
    expect.soft(recovery, report).not.toBeInstanceOf(Error);
    expect.soft(server.pid, "the server was not restarted").toBe(pid);
    expect
      .soft(readyWhileDown.status, `GET /ready while PostgreSQL is down: ${describeOutcome(readyWhileDown)}`)
      .toBe(503);
    expect.soft(readyAfter.status, `GET /ready once it is back: ${describeOutcome(readyAfter)}`).toBe(200);

    // Nothing lost: every sign-up that got a 200 exists, with its one identity and its one confirmation mail.
    const isSignUp = (email: string) => email.startsWith("pg-");
    let { ledger, missing, ms } = await waitForEveryMail(cluster, sink, 20_000, isSignUp);
    // A claim that committed as PostgreSQL died, its answer lost, leaves its message leased for its lease (20 s):
    // late, not lost. Jump over that wait for what is still pending, and say how many there were.
    let stranded = 0;
    if (missing.length > 0) {
      stranded = Number(
        cluster.query(
          `with freed as (update outbox set lease_until = now()
                           where delivered_at is null and lease_until > now() returning 1)
           select count(*) from freed`,
        )[0]?.[0],
      );
      if (stranded > 0) ({ ledger, missing, ms } = await waitForEveryMail(cluster, sink, 15_000, isSignUp));
    }
    console.info(`mail: ${ledger.users.length} sign-ups stored; ${stranded} messages left leased by the crash`);
    const emails = new Set(ledger.users.map((user) => user.email));
    const lost = outcomes
      .filter((o) => o.status === 200 && o.what.startsWith("signup "))
      .map((o) => o.what.slice("signup ".length))
      .filter((email) => !emails.has(email));
    expect.soft(lost, "sign-ups answered 200 but not in the database").toEqual([]);
    expect.soft(listed(halfWritten(ledger)), "half-written sign-ups").toBe("");
    expect.soft(listed(missing), `mail, ${ms} ms after the check (${ledger.users.length} users)`).toBe("");
    expect.soft(listed(duplicateMail(ledger, sink)), "mail sent twice, under two Message-IDs").toBe("");
  });
});
