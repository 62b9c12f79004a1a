import { setTimeout as sleep } from "node:timers/promises";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startPostgresCluster } from "../support/cluster.ts";
import { describeRow, halfWritten, listed, mailProblems, readLedger } from "../support/ledger.ts";
import { expectNone, latencies, PASSWORD, postOnOwnConnection, startLoad, tally } from "../support/load.ts";
import { startMailSink } from "../support/mail.ts";
import { waitUntil } from "../support/processes.ts";
import { faultSuiteUnavailable } from "../support/requirements.ts";
import { startServer } from "../support/server.ts";

describeIfAvailable(faultSuiteUnavailable, "SIGTERM under load", () => {
  it("answers every request in flight, then sends the mail they queued before it exits", async () => {
    const cluster = await startPostgresCluster();
    // A slow mail server (150 ms a message), so that mail is queued behind the sign-ups when SIGTERM comes.
    const sink = await startMailSink({ dataDelayMs: 150 });
    const server = await startServer({ databaseUrl: cluster.url, smtpPort: sink.port });

    // 12 clients signing up back to back, each request on a connection of its own (see postOnOwnConnection); once
    // 80 have their answer, the clients stop sending and SIGTERM comes 30 ms later, with their last requests still
    // in flight. At most 120 sign-ups in all, so that the mail queued stays within what a short drain can send.
    const load = startLoad({
      workers: 12,
      maxRequests: 120,
      task: (_worker, n) =>
        postOnOwnConnection({
          baseUrl: server.url,
          path: "/signup",
          json: { email: `term-${n}@example.com`, password: PASSWORD },
          what: `signup term-${n}@example.com`,
          timeoutMs: 20_000,
        }),
    });
    await waitUntil("80 sign-ups to be answered", () => load.outcomes().length >= 80, {
      timeoutMs: 30_000,
      explain: () => tally(load.outcomes()),
    });
    const stopped = load.stop();
    await sleep(30);
    const backlog = readLedger(cluster).outbox.filter((row) => !row.delivered).length;
    const inFlight = load.inFlight();
    const termAt = Date.now();
    server.signal("SIGTERM");
    const outcomes = await stopped;
    const exit = await Promise.race([server.exited(), sleep(25_000).then(() => "still running after 25 s")]);
    const exitMs = Date.now() - termAt;

    const ledger = readLedger(cluster);
    const pending = ledger.outbox.filter((row) => !row.delivered);
    const report = [
      `sign-ups: ${tally(outcomes)} (${latencies(outcomes)}); ${inFlight} in flight at SIGTERM`,
      `${backlog} mails queued at SIGTERM; exit ${JSON.stringify(exit)} after ${exitMs} ms`,
      `after the exit: ${ledger.users.length} users, ${pending.length} mails still queued, ${sink.messages.length} delivered`,
    ].join("\n");
    console.info(`SIGTERM under load:\n${report}`);

    expect.soft(inFlight, `requests in flight at SIGTERM (else this checks nothing)\n${report}`).toBeGreaterThan(0);
    expectNone(
      outcomes.filter((o) => o.status !== 200),
      "requests not answered 200 (a reset shows as no answer)",
      report,
    );
    expect.soft(exit, `the exit\n${report}`).toEqual({ code: 0, signal: null });
    expect
      .soft(listed(pending.map((row) => `${row.to ?? row.id}: ${describeRow(row)}`)), `the outbox drained\n${report}`)
      .toBe("");
    expect.soft(listed(halfWritten(ledger)), "half-written sign-ups").toBe("");
    expect.soft(listed(mailProblems(ledger, sink)), "every user's mail, once").toBe("");
  });
});
