import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startPostgresCluster } from "../support/cluster.ts";
import { duplicateMail, halfWritten, listed, readLedger } from "../support/ledger.ts";
import { expectNone, latencies, signUp, startLoad, tally } from "../support/load.ts";
import { ledgerReport, startMailSink, waitForEveryMail } from "../support/mail.ts";
import { waitUntil } from "../support/processes.ts";
import { faultSuiteUnavailable } from "../support/requirements.ts";
import { startServer } from "../support/server.ts";

/**
 * How soon after the restart every committed sign-up's mail must have arrived: the dead process's claims lapse with
 * their lease (20 s from the last claim or renewal before the kill), then the next worker sends them (1 s here).
 * Within a minute is what users are promised; far less is needed.
 */
const MAIL_AFTER_RESTART_MS = 30_000;
/** Sends that hang at DATA until the kill: claimed, never accepted, so only a lease running out frees them. */
const HUNG_SENDS = 5;

describeIfAvailable(faultSuiteUnavailable, "the server killed (SIGKILL) during sign-ups", () => {
  it("leaves no sign-up half-written, and sends every committed sign-up's mail soon after a restart", async () => {
    const cluster = await startPostgresCluster();
    // Mail is being sent when the process dies: the first messages hang at DATA (their recipients' servers hung)
    // until the kill, and the rest are accepted after 1 s, so the ones in that second when the process dies reach
    // the sink with nothing recorded, and are sent again.
    const hang = { left: HUNG_SENDS, on: true };
    const sink = await startMailSink({
      dataDelayMs: 1000,
      stallData: () => {
        if (!hang.on || hang.left === 0) return false;
        hang.left -= 1;
        return true;
      },
    });
    const server = await startServer({ databaseUrl: cluster.url, smtpPort: sink.port });

    // 12 clients signing up back to back; the kill comes once 40 have succeeded and the hung sends are claimed,
    // with requests in flight.
    const load = startLoad({
      workers: 12,
      maxRequests: 2000,
      task: (_worker, n) => signUp(server.url, `kill-${n}@example.com`, 10_000),
    });
    await waitUntil("40 sign-ups to succeed", () => load.outcomes().filter((o) => o.status === 200).length >= 40, {
      timeoutMs: 20_000,
      explain: () => tally(load.outcomes()),
    });
    await waitUntil("the hung sends to be under way", () => hang.left === 0, { timeoutMs: 10_000 });
    const inFlight = load.inFlight();
    server.signal("SIGKILL");
    const exit = await server.exited();
    const killedAt = Date.now();
    hang.on = false;
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
    // Else this checks nothing: mail the dead process held is what must not wait out a long lease.
    expect.soft(claimed.length, `mails claimed by the dead process\n${report}`).toBeGreaterThanOrEqual(HUNG_SENDS);

    await server.restart();
    const restartMs = Date.now() - killedAt;
    const { ledger, missing, ms } = await waitForEveryMail(cluster, sink, MAIL_AFTER_RESTART_MS);
    // Anything sent twice (accepted before the kill, never marked delivered) arrives by the time nothing is pending.
    await waitUntil("the outbox to empty", () => readLedger(cluster).outbox.every((row) => row.delivered), {
      timeoutMs: 10_000,
    }).catch(() => undefined);
    const after = readLedger(cluster);
    const duplicates = duplicateMail(after, sink);
    const twice = after.users.filter((user) => sink.to(user.email).length > 1).length;
    console.info(
      `after the restart (ready ${restartMs} ms after the kill): every mail ${
        missing.length === 0
          ? `arrived within ${ms} ms (${ms + restartMs} ms after the kill)`
          : `did not arrive within ${ms} ms`
      }; ${twice} sent twice; ${after.outbox.filter((row) => !row.delivered).length} still pending`,
    );

    expect
      .soft(
        listed(missing),
        `mail ${MAIL_AFTER_RESTART_MS} ms after the restart (${ledger.users.length} users)\n${report}`,
      )
      .toBe("");
    expect
      .soft(listed(duplicates), "mail sent twice must share its Message-ID, so that mail clients show it once")
      .toBe("");
  });
});
