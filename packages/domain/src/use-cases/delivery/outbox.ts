import type { Deps } from "../../deps.ts";
import type { OutboxEntry } from "../../model/outbox.ts";
import { type ClaimedMessage, type DeliveryFailure, deliverClaimedMessage } from "./deliver-message.ts";

// The outbox worker's side: claiming the messages due, keeping their leases, delivering them. The flows that call
// for a message queue it themselves, in their own transaction (services/delivery/enqueue.ts).

/**
 * How long a claim keeps other workers off a message. Short, so that the claims of a worker that died (a process
 * killed, a machine lost) lapse soon and another sends their mail: a live worker renews the claims it is still
 * sending every OUTBOX_RENEWAL_SECONDS (renewClaims), however long the attempt takes. A worker that loses its lease
 * anyway cannot overwrite what the next one recorded (see OutboxStore.markDelivered).
 */
export const OUTBOX_LEASE_SECONDS = 20;
/**
 * How often a worker renews the claims it is sending: a quarter of the lease, so that three renewals in a row may
 * fail (a database that restarts, a connection cut) before another worker can take a message over.
 */
export const OUTBOX_RENEWAL_SECONDS = 5;
/** deliverDueMessages' batch when the caller names none. */
const DEFAULT_BATCH = 5;

export interface DeliveryReport {
  /** How many messages were claimed: a full batch means more may be waiting. */
  readonly claimed: number;
  readonly delivered: number;
  readonly failures: readonly DeliveryFailure[];
}

/**
 * Leases up to `limit` messages that are due to this caller, each to be attempted at once with
 * deliverClaimedMessage: a worker claims as many as it has room for, as room frees up.
 */
export async function claimDueMessages(deps: Deps, options: { limit: number }): Promise<readonly ClaimedMessage[]> {
  const now = deps.clock.now();
  const claim = deps.random.uuid();
  const entries = await deps.stores.outbox.claimDue({
    now,
    limit: options.limit,
    leaseUntil: new Date(now.getTime() + OUTBOX_LEASE_SECONDS * 1000),
    claim,
  });
  return entries.map((entry) => ({ entry, claim }));
}

/**
 * Extends the leases of messages the caller is still sending by OUTBOX_LEASE_SECONDS from now, and returns the ids
 * it extended. A lease that ran out, or that another worker took over, is not extended: that attempt goes on, but
 * its message may be sent again (under the same Message-ID), and its outcome is recorded only if no one else's was.
 */
export async function renewClaims(deps: Deps, held: readonly ClaimedMessage[]): Promise<readonly string[]> {
  if (held.length === 0) return [];
  const now = deps.clock.now();
  return deps.stores.outbox.renewLeases({
    held: held.map(({ entry, claim }) => ({ id: entry.id, claim })),
    now,
    leaseUntil: new Date(now.getTime() + OUTBOX_LEASE_SECONDS * 1000),
  });
}

/**
 * Claims the messages due and attempts them all at once, waiting for the slowest. Messages are independent: one
 * that fails is rescheduled with backoff. It renews no lease: for tests and callers whose attempts end within
 * OUTBOX_LEASE_SECONDS. (The server's worker claims and delivers one by one instead, renewing as it sends.)
 */
export async function deliverDueMessages(deps: Deps, options: { limit?: number } = {}): Promise<DeliveryReport> {
  const claimed = await claimDueMessages(deps, { limit: options.limit ?? DEFAULT_BATCH });
  const outcomes = await Promise.all(claimed.map((message) => deliverClaimedMessage(deps, message)));
  const failures = outcomes.filter((result) => result.outcome === "failed");
  return { claimed: claimed.length, delivered: outcomes.length - failures.length, failures };
}

/** How far behind one channel's delivery is. */
export interface OutboxDepth {
  readonly channel: OutboxEntry["channel"];
  /** Messages still to deliver: due, waiting for a retry, or being sent. */
  readonly pending: number;
  /** How long the oldest of them has waited; 0 when there is none. */
  readonly oldestAgeSeconds: number;
}

/** The outbox's backlog, every channel reported (an empty one as zeros), for an operator's gauges. */
export async function outboxDepth(deps: Deps): Promise<readonly OutboxDepth[]> {
  const now = deps.clock.now().getTime();
  const pending = await deps.stores.outbox.pending();
  return (["email", "sms"] as const).map((channel) => {
    const backlog = pending.find((each) => each.channel === channel);
    return {
      channel,
      pending: backlog?.count ?? 0,
      oldestAgeSeconds: backlog ? Math.max(0, (now - backlog.oldestCreatedAt.getTime()) / 1000) : 0,
    };
  });
}
