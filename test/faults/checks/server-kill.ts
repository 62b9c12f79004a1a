import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startPostgresCluster } from "../support/cluster.ts";
import { duplicateMail, halfWritten, listed, readLedger } from "../support/ledger.ts";
import { expectNone, latencies, signUp, startLoad, tally } from "../support/load.ts";
import { ledgerReport, startMailSink, waitForEveryMail } from "../support/mail.ts";
import { waitUntil } from "../support/processes.ts";
import { faultSuiteUnavailable } from "../support/requirements.ts";
import { startServer } from "../support/server.ts";

describeIfAvailable(faultSuiteUnavailable, "the server killed (SIGKILL) during sign-ups", () => {
  it("leaves no sign-up half-written, and sends every committed sign-up's mail after a restart", async () => {
    const cluster = await startPostgresCluster();
    // A mail server a little slow (30 ms a message), so that mail is still queued when the process dies.
    const sink = await startMailSink({ dataDelayMs: 30 });
    const server = await startServer({ databaseUrl: cluster.url, smtpPort: sink.port });

    // 12 clients signing up back to back; the kill comes once 40 have succeeded, with requests in flight.
    const load = startLoad({
      workers: 12,
      maxRequests: 2000,
      task: (_worker, n) => signUp(server.url, `kill-${n}@example.com`, 10_000),
    });
    await waitUntil("40 sign-ups to succeed", () => load.outcomes().filter((o) => o.status === 200).length >= 40, {
      timeoutMs: 20_000,
      explain: () => tally(load.outcomes()),
    });
    const inFlight = load.inFlight();
    server.signal("SIGKILL");
    const exit = await server.exited();
    const outcomes = await load.stop();

    const atKill = readLedger(cluster);
    const pending = atKill.outbox.filter((row) => !row.delivered);
    const claimed = pending.filter((row) => row.leaseUntil !== "");
    const report = [
      `sign-ups: ${tally(outcomes)} (${latencies(outcomes)}); ${inFlight} in flight at the kill (${exit.signal})`,
      `at the kill: ${ledgerReport(atKill)}; ${pending.length} mails pending, ${claimed.length} of them claimed by the dead process`,
    ].join("\n");
    console.info(`kill -9 during sign-ups:\n${report}`);

    // Nothing half-written: every user has its identity and its queued mail, and every 200 is a user.
    expect.soft(listed(halfWritten(atKill)), `half-written after the kill\n${report}`).toBe("");
    const users = new Set(atKill.users.map((user) => user.email));
    expectNone(
      outcomes.filter((o) => o.status === 200 && !users.has(o.what.slice("signup ".length))),
      "sign-ups answered 200 that are not in the database",
    );
    expectNone(
      outcomes.filter((o) => o.status !== null && o.status !== 200),
      "sign-ups answered with an error before the kill",
    );

    // The dead process's claims would keep the next one off those messages for their lease (5 minutes): jump over
    // that wait, as the clock would.
    cluster.query("update outbox set lease_until = now() where delivered_at is null and lease_until > now()");
    await server.restart();
    const { ledger, missing, ms } = await waitForEveryMail(cluster, sink, 20_000);
    // Anything sent twice (sent before the kill, never marked delivered) arrives by the time nothing is pending.
    await waitUntil("the outbox to empty", () => readLedger(cluster).outbox.every((row) => row.delivered), {
      timeoutMs: 10_000,
    }).catch(() => undefined);
    const duplicates = duplicateMail(readLedger(cluster), sink);
    console.info(
      `after the restart: every mail ${missing.length === 0 ? `arrived within ${ms} ms` : "did not arrive"}`,
    );

    expect.soft(listed(missing), `mail after the restart (${ledger.users.length} users)\n${report}`).toBe("");
    expect
      .soft(listed(duplicates), "mail sent twice must share its Message-ID, so that mail clients show it once")
      .toBe("");
  });
});
