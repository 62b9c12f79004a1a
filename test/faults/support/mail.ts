import { type SmtpSink, type SmtpSinkOptions, startSmtpSink } from "@latchkey/adapters-smtp/testing";
import type { PostgresCluster } from "./cluster.ts";
import { halfWritten, type Ledger, listed, missingMail, readLedger, signUpsOnly } from "./ledger.ts";
import { track, waitUntil } from "./processes.ts";

/** The repo's SMTP sink, closed after the check (stalled connections included). */
export async function startMailSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const sink = await startSmtpSink(options);
  track({ name: `SMTP sink on ${sink.port}`, stop: () => sink.close(), kill: () => undefined });
  return sink;
}

/**
 * Waits until every user in the database has its confirmation mail, up to `timeoutMs`; returns the ledger read last,
 * what is still missing (nothing when all arrived) and how long it waited.
 */
export async function waitForEveryMail(
  cluster: PostgresCluster,
  sink: SmtpSink,
  timeoutMs: number,
  isSignUp: (email: string) => boolean = () => true,
): Promise<{ ledger: Ledger; missing: string[]; ms: number }> {
  let ledger = signUpsOnly(readLedger(cluster), isSignUp);
  let missing = missingMail(ledger, sink);
  const ms = await waitUntil(
    "every user's mail",
    () => {
      ledger = signUpsOnly(readLedger(cluster), isSignUp);
      missing = missingMail(ledger, sink);
      return missing.length === 0;
    },
    { timeoutMs, intervalMs: 250 },
  ).catch(() => timeoutMs);
  return { ledger, missing, ms };
}

/** Assertion text for a ledger: what is half-written, if anything. */
export function ledgerReport(ledger: Ledger): string {
  const problems = halfWritten(ledger);
  return problems.length === 0
    ? `${ledger.users.length} users, ${ledger.outbox.length} queued messages, consistent`
    : `half-written:\n${listed(problems)}`;
}
