import { Agent } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startPostgresCluster } from "../support/cluster.ts";
import {
  call,
  createConfirmedUser,
  expectNone,
  kindOf,
  latencies,
  type Outcome,
  PASSWORD,
  post,
  startLoad,
  tally,
} from "../support/load.ts";
import { startMailSink } from "../support/mail.ts";
import { waitUntil } from "../support/processes.ts";
import { faultSuiteUnavailable } from "../support/requirements.ts";
import { startServer } from "../support/server.ts";

const USERS = 10;
/**
 * Sign-ins sent at once around SIGTERM, half on kept-alive connections and half on connections of their own, half
 * just before it and half just after.
 */
const BURST = 100;
/** How long the steady load goes on after SIGTERM: a load balancer still sending while it deregisters the server. */
const LOAD_AFTER_TERM_MS = 300;
/**
 * Answers that come this long after SIGTERM were written after the server took the signal, so must say
 * `Connection: close`; one written just before it may not.
 */
const CLOSE_MARGIN_MS = 200;
/** How soon after the last answer the process must be gone: the drain ends with the last answer, not its timer. */
const EXIT_AFTER_LAST_ANSWER_MS = 4_000;

const isReset = (o: Outcome) => o.status === null && o.networkError !== "ECONNREFUSED";
const answeredAt = (o: Outcome) => o.startedAt + o.ms;

describeIfAvailable(
  faultSuiteUnavailable,
  "SIGTERM with requests in the accept queue and on kept-alive connections",
  () => {
    it("answers every request that reached it, those after the signal with Connection: close, then exits", async () => {
      const cluster = await startPostgresCluster();
      const sink = await startMailSink();
      const server = await startServer({ databaseUrl: cluster.url, smtpPort: sink.port });
      const emails = Array.from({ length: USERS }, (_, n) => `drain-${n}@example.com`);
      for (const email of emails) await createConfirmedUser(server.url, email);

      // Kept-alive connections, reused from one sign-in to the next, as a load balancer or an SDK keeps them.
      const keptAlive = new Agent({ keepAlive: true });
      const signIn = (n: number, agent: Agent | false) =>
        post({
          baseUrl: server.url,
          path: "/token?grant_type=password",
          json: { email: emails[n % USERS], password: PASSWORD },
          what: `sign-in ${n} (${agent ? "kept-alive" : "own connection"})`,
          agent,
          timeoutMs: 30_000,
        });

      // Steady load: 8 clients, every other one on kept-alive connections, the others opening a connection for each
      // request, so that the server has connections busy, idle between requests, and new when SIGTERM comes.
      const steady = startLoad({
        workers: 8,
        maxRequests: 100_000,
        pauseMs: 10,
        task: (worker, n) => signIn(n, worker % 2 === 0 ? keptAlive : false),
      });
      await waitUntil("40 sign-ins to be answered", () => steady.outcomes().length >= 40, {
        timeoutMs: 30_000,
        explain: () => tally(steady.outcomes()),
      });

      // Half the burst is on its way when SIGTERM is sent, the other half right behind it: connections the kernel
      // has accepted and the server not yet taken when it handles the signal.
      const sendBurst = (from: number) =>
        Array.from({ length: BURST / 2 }, (_, n) => signIn(1_000_000 + from + n, n % 2 === 0 ? keptAlive : false));
      const burst = sendBurst(0);
      await new Promise((resolve) => setImmediate(resolve));
      const termAt = Date.now();
      server.signal("SIGTERM");
      burst.push(...sendBurst(BURST / 2));
      await sleep(100);
      const asked = call(server.url, "/ready", { timeoutMs: 5_000 });
      await sleep(LOAD_AFTER_TERM_MS - 100);
      const outcomes = [...(await steady.stop()), ...(await Promise.all(burst))];
      const ready = await asked;
      const lastAnswer = Math.max(...outcomes.map(answeredAt));
      const exit = await Promise.race([server.exited(), sleep(30_000).then(() => "still running after 30 s")]);
      const exitAfterLastAnswerMs = Date.now() - lastAnswer;
      keptAlive.destroy();

      const afterTerm = outcomes.filter((o) => answeredAt(o) >= termAt + CLOSE_MARGIN_MS);
      const keptOpen = afterTerm.filter((o) => o.status !== null && o.connection?.toLowerCase() !== "close");
      const byKind = (kind: string) => outcomes.filter((o) => o.what.includes(kind));
      const report = [
        `${BURST} sign-ins sent at once around SIGTERM; steady load (8 clients) until ${LOAD_AFTER_TERM_MS} ms after it`,
        `kept-alive: ${tally(byKind("kept-alive"))}`,
        `own connection: ${tally(byKind("own connection"))}`,
        `resets: ${outcomes.filter(isReset).length}; refused: ${outcomes.filter((o) => o.networkError === "ECONNREFUSED").length}`,
        `${afterTerm.length} answered ${CLOSE_MARGIN_MS} ms or more after SIGTERM, ${keptOpen.length} of them without Connection: close`,
        `latencies: ${latencies(outcomes)}; GET /ready 100 ms after SIGTERM: ${kindOf(ready)}`,
        `exit ${JSON.stringify(exit)}, ${exitAfterLastAnswerMs} ms after the last answer (${lastAnswer - termAt} ms after SIGTERM)`,
      ].join("\n");
      console.info(`SIGTERM with requests in the accept queue and on kept-alive connections:\n${report}`);

      expectNone(outcomes.filter(isReset), "requests reset (ECONNRESET, socket hang up)", report);
      expectNone(
        outcomes.filter((o) => o.status !== 200 && !isReset(o)),
        "requests not answered 200 (refused, or another status)",
        report,
      );
      expect.soft(afterTerm.length, `answers after SIGTERM (else this checks nothing)\n${report}`).toBeGreaterThan(0);
      expectNone(keptOpen, "answers after SIGTERM without Connection: close", report);
      expect
        .soft(ready.status, `GET /ready during the drain, so that a load balancer stops sending\n${report}`)
        .toBe(503);
      expect.soft(exit, `the exit\n${report}`).toEqual({ code: 0, signal: null });
      expect
        .soft(exitAfterLastAnswerMs, `ms from the last answer to the exit\n${report}`)
        .toBeLessThan(EXIT_AFTER_LAST_ANSWER_MS);
    });
  },
);
