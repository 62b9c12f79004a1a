import { setTimeout as sleep } from "node:timers/promises";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startPostgresCluster } from "../support/cluster.ts";
import { listed, mailProblems, readLedger } from "../support/ledger.ts";
import { expectNone, latencies, percentile, signUp, tally } from "../support/load.ts";
import { startMailSink, waitForEveryMail } from "../support/mail.ts";
import { waitUntil } from "../support/processes.ts";
import { faultSuiteUnavailable } from "../support/requirements.ts";
import { startServer } from "../support/server.ts";

/** Sign-ups do not wait for mail: with the mail server dead or hung they answer as fast as ever. */
async function signUpMany(url: string, prefix: string, count: number) {
  const outcomes = await Promise.all(
    Array.from({ length: count }, (_, i) => signUp(url, `${prefix}-${i}@example.com`, 15_000)),
  );
  expectNone(
    outcomes.filter((o) => o.status !== 200 || o.ms > 2000),
    "sign-ups that failed or took over 2 s while mail cannot be sent",
  );
  return outcomes;
}

describeIfAvailable(faultSuiteUnavailable, "the mail server dead, stalled, or stuck on one recipient", () => {
  it("keeps the mail of sign-ups made while the mail server is down, and sends each once it is back", async () => {
    const cluster = await startPostgresCluster();
    const sink = await startMailSink();
    const server = await startServer({ databaseUrl: cluster.url, smtpPort: sink.port });

    await sink.stop();
    await signUpMany(server.url, "dead", 10);
    await sleep(3000);
    const tried = readLedger(cluster).outbox.filter((row) => row.attempts > 0).length;
    await sink.start();
    const { missing, ms, ledger } = await waitForEveryMail(cluster, sink, 20_000);
    console.info(`SMTP dead 3 s: ${tried} of 10 mails tried meanwhile; all arrived ${ms} ms after it came back`);

    expect.soft(tried, "delivery was attempted while the mail server was down").toBeGreaterThan(0);
    expect.soft(ledger.users).toHaveLength(10);
    expect.soft(listed(missing), "every mail, once, within 20 s of the mail server's return").toBe("");
  });

  it("answers sign-ups while the mail server accepts connections and never answers, and sends once it does", async () => {
    const cluster = await startPostgresCluster();
    let stalled = true;
    // Hung at the greeting for new connections, and at the end of DATA for any already open.
    const sink = await startMailSink({ stallGreeting: () => stalled, stallData: () => stalled });
    const server = await startServer({ databaseUrl: cluster.url, smtpPort: sink.port });

    await signUpMany(server.url, "stalled", 10);
    await sleep(5000);
    expect.soft(sink.messages, "nothing can arrive while the server hangs").toHaveLength(0);
    stalled = false;
    const { missing, ms } = await waitForEveryMail(cluster, sink, 30_000);
    console.info(`SMTP stalled 5 s: all 10 mails arrived ${ms} ms after it answered again`);
    expect.soft(listed(missing), "every mail, once, within 30 s of the mail server answering again").toBe("");
  });

  it("delivers everyone's mail on time while one recipient's messages hang at DATA", async () => {
    const cluster = await startPostgresCluster();
    const isStuck = (address: string) => address.startsWith("stuck-");
    const sink = await startMailSink({ stallData: (recipients) => recipients.some(isStuck) });
    const server = await startServer({ databaseUrl: cluster.url, smtpPort: sink.port });

    // 40 sign-ups over about 6 s; 5 of them (3 at the start, 2 in the middle) to recipients whose mail hangs.
    const stuckAt = new Set([0, 1, 2, 20, 21]);
    const answeredAt = new Map<string, number>();
    const outcomes = [];
    for (let i = 0; i < 40; i++) {
      const email = `${stuckAt.has(i) ? "stuck" : "normal"}-${i}@example.com`;
      const outcome = await signUp(server.url, email, 15_000);
      outcomes.push(outcome);
      if (!isStuck(email)) answeredAt.set(email, outcome.startedAt + outcome.ms);
      await sleep(150);
    }
    expectNone(
      outcomes.filter((o) => o.status !== 200),
      "failed sign-ups",
    );

    const others = [...answeredAt.keys()];
    await waitUntil("everyone else's mail", () => others.every((email) => sink.to(email).length > 0), {
      timeoutMs: 20_000,
    }).catch(() => undefined);
    const ledger = readLedger(cluster);
    const missingNormal = mailProblems(ledger, sink).filter((problem) => !problem.includes("stuck-"));
    const delays = [...answeredAt].map(([email, at]) => {
      const mail = sink.to(email)[0];
      return { email, ms: mail ? mail.receivedAt - at : Number.POSITIVE_INFINITY };
    });
    const arrived = delays.filter((delay) => Number.isFinite(delay.ms)).map((delay) => delay.ms);
    const report = `${arrived.length} of ${delays.length} other mails arrived; delay after the 200: p50 ${percentile(arrived, 50)} ms, p95 ${percentile(arrived, 95)} ms, max ${percentile(arrived, 100)} ms`;
    console.info(`one stuck recipient: ${report}; sign-ups ${tally(outcomes)} (${latencies(outcomes)})`);

    expect.soft(listed(missingNormal), `everyone else's mail, once\n${report}`).toBe("");
    expect
      .soft(
        listed(delays.filter((delay) => delay.ms > 5000).map((delay) => `${delay.email}: ${delay.ms} ms`)),
        `everyone else's mail within 5 s of its sign-up (about 50 ms normally)\n${report}`,
      )
      .toBe("");
    expect.soft(ledger.users).toHaveLength(40);
  });
});
