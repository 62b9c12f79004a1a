import { createSecrets } from "@latchkey/adapters-crypto";
import type { ReceivedMail, SmtpSink } from "@latchkey/adapters-smtp/testing";
import type { PostgresCluster } from "./cluster.ts";
import { DB_SECRET } from "./server.ts";

/** What the database holds of the sign-ups and their mail, read straight from the tables (no namespace). */
export interface Ledger {
  readonly users: readonly { readonly id: string; readonly email: string; readonly identities: number }[];
  readonly outbox: readonly OutboxRow[];
}

export interface OutboxRow {
  readonly id: string;
  readonly channel: string;
  readonly delivered: boolean;
  readonly attempts: number;
  /** Due again at; empty when delivered or given up. */
  readonly nextAttemptAt: string;
  /** A worker's claim on it until then; empty when none. */
  readonly leaseUntil: string;
  readonly lastError: string;
  /** Whom it goes to, read from the sealed message while it is undelivered. */
  readonly to: string | undefined;
}

const secrets = createSecrets(DB_SECRET);

function recipientOf(sealed: string): string | undefined {
  if (!sealed) return undefined;
  try {
    return (JSON.parse(secrets.open(sealed)) as { email?: { to?: string } }).email?.to;
  } catch {
    return "(cannot be opened)";
  }
}

export function readLedger(cluster: PostgresCluster): Ledger {
  const users = cluster
    .query(
      "select u.id, u.email, (select count(*) from identities i where i.user_id = u.id) from users u order by u.created_at",
    )
    .map(([id, email, identities]) => ({ id: id!, email: email!, identities: Number(identities) }));
  const outbox = cluster
    .query(
      `select id, channel, delivered_at is not null, attempts, coalesce(next_attempt_at::text, ''),
              coalesce(lease_until::text, ''), replace(replace(coalesce(last_error, ''), '|', '/'), E'\\n', ' '),
              coalesce(sealed_message, '')
         from outbox order by created_at`,
    )
    .map(([id, channel, delivered, attempts, nextAttemptAt, leaseUntil, lastError, sealed]) => ({
      id: id!,
      channel: channel!,
      delivered: delivered === "t",
      attempts: Number(attempts),
      nextAttemptAt: nextAttemptAt!,
      leaseUntil: leaseUntil!,
      lastError: lastError!,
      to: recipientOf(sealed!),
    }));
  return { users, outbox };
}

/** The ledger of the users `isSignUp` picks (users made through the admin API get no mail). */
export function signUpsOnly(ledger: Ledger, isSignUp: (email: string) => boolean): Ledger {
  return { users: ledger.users.filter((user) => isSignUp(user.email)), outbox: ledger.outbox };
}

/**
 * Every way the ledger is half-written: a user without exactly one identity, a sign-up whose confirmation mail was
 * not queued with it (or queued twice), or a queued mail for nobody. Each sign-up of these checks queues exactly one
 * mail, so the email rows and the users match one to one.
 */
export function halfWritten(ledger: Ledger): string[] {
  const problems: string[] = [];
  for (const user of ledger.users) {
    if (user.identities !== 1) problems.push(`${user.email} has ${user.identities} identities`);
  }
  const emails = ledger.outbox.filter((row) => row.channel === "email");
  if (emails.length !== ledger.users.length)
    problems.push(`${ledger.users.length} users but ${emails.length} queued mails`);
  const known = new Set(ledger.users.map((user) => user.email.toLowerCase()));
  const pendingTo = new Map<string, number>();
  for (const row of emails) {
    if (row.to === undefined) continue;
    if (!known.has(row.to.toLowerCase())) problems.push(`a queued mail (${row.id}) to ${row.to}, who is no user`);
    pendingTo.set(row.to, (pendingTo.get(row.to) ?? 0) + 1);
  }
  for (const [to, count] of pendingTo) if (count > 1) problems.push(`${count} mails queued for ${to}`);
  return problems;
}

/** A mail's Message-ID: what lets a mail client collapse a duplicate. */
const messageIdOf = (mail: ReceivedMail) => mail.parsed.messageId ?? "(none)";

/** Users whose confirmation mail has not arrived, with the state of its outbox row. */
export function missingMail(ledger: Ledger, sink: SmtpSink): string[] {
  return ledger.users
    .filter((user) => sink.to(user.email).length === 0)
    .map((user) => {
      const row = ledger.outbox.find((each) => each.to?.toLowerCase() === user.email.toLowerCase());
      return `no mail to ${user.email}${row ? ` (outbox: ${describeRow(row)})` : ""}`;
    });
}

/**
 * Users who got two distinct messages. Delivery is at least once: a message sent again (after a crash between the
 * mail server's acceptance and the "delivered" mark) is allowed when it keeps its Message-ID, which mail clients
 * collapse.
 */
export function duplicateMail(ledger: Ledger, sink: SmtpSink): string[] {
  return ledger.users.flatMap((user) => {
    const mails = sink.to(user.email);
    const ids = new Set(mails.map(messageIdOf));
    return ids.size > 1
      ? [`${mails.length} mails to ${user.email} with ${ids.size} Message-IDs: ${[...ids].join(", ")}`]
      : [];
  });
}

/** Both of the above: each user's confirmation arrived, as one message. */
export function mailProblems(ledger: Ledger, sink: SmtpSink): string[] {
  return [...missingMail(ledger, sink), ...duplicateMail(ledger, sink)];
}

export function describeRow(row: OutboxRow): string {
  return [
    row.delivered ? "delivered" : "pending",
    `attempts ${row.attempts}`,
    row.nextAttemptAt && `next ${row.nextAttemptAt}`,
    row.leaseUntil && `leased until ${row.leaseUntil}`,
    row.lastError && `last error "${row.lastError.slice(0, 160)}"`,
  ]
    .filter(Boolean)
    .join(", ");
}

/** At most `limit` items, one a line, with how many were left out. */
export function listed(items: readonly string[], limit = 12): string {
  const shown = items.slice(0, limit).map((item) => `  - ${item}`);
  if (items.length > limit) shown.push(`  ... and ${items.length - limit} more`);
  return shown.join("\n");
}
