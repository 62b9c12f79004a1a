import { isAuthError } from "../../errors.ts";
import { nextAttemptAfterFailure, type OutboundMessage, type OutboxEntry } from "../../model/outbox.ts";
import type { MessageKind } from "../../ports/flow-events.ts";
import type { Stores } from "../../ports/stores.ts";
import type { Deps } from "../deps.ts";

/**
 * How long a claim keeps other workers off a message: longer than any send may take (an SMTP connection, greeting
 * and reply each wait up to tens of seconds; an SMS provider ten), even behind the rest of its batch. A worker
 * that overruns it anyway cannot overwrite what the next one recorded (see OutboxStore.markDelivered).
 */
const LEASE_SECONDS = 300;
/** Small batches: each message waits for those sent ahead of it on a shared connection pool. */
const DEFAULT_BATCH = 5;

/** What became of a first attempt the caller made itself, before queueing (see sms-codes.ts). */
export type FirstAttempt = { readonly outcome: "delivered" } | { readonly outcome: "failed"; readonly error: string };

/**
 * Queues a message in the caller's transaction and returns its id (GoTrue's `message_id`). After a first attempt
 * of the caller's, it is recorded as delivered (keeping nothing of the message), or due again after the backoff.
 */
export async function enqueueMessage(
  deps: Deps,
  stores: Stores,
  message: OutboundMessage,
  expiresAt: Date,
  firstAttempt?: FirstAttempt,
): Promise<string> {
  const now = deps.clock.now();
  const id = deps.random.uuid();
  const queued: OutboxEntry = {
    id,
    channel: message.channel,
    sealedMessage: deps.secrets.seal(JSON.stringify(message)),
    createdAt: now,
    nextAttemptAt: now,
    expiresAt,
    attempts: 0,
    deliveredAt: null,
    lastError: null,
  };
  if (firstAttempt?.outcome === "delivered") {
    await stores.outbox.enqueue({ ...queued, sealedMessage: null, nextAttemptAt: null, attempts: 1, deliveredAt: now });
  } else if (firstAttempt?.outcome === "failed") {
    const nextAttemptAt = nextAttemptAfterFailure(1, now, expiresAt);
    const sealedMessage = nextAttemptAt === null ? null : queued.sealedMessage;
    await stores.outbox.enqueue({
      ...queued,
      sealedMessage,
      nextAttemptAt,
      attempts: 1,
      lastError: describeFailure(firstAttempt.error),
    });
  } else {
    await stores.outbox.enqueue(queued);
  }
  return id;
}

/** What an entry keeps of a failure: a bounded text for operators. */
function describeFailure(error: string): string {
  return error.slice(0, 500);
}

export interface DeliveryReport {
  /** How many messages were claimed: a full batch means more may be waiting. */
  readonly claimed: number;
  readonly delivered: number;
  readonly failures: readonly { readonly id: string; readonly error: string; readonly willRetry: boolean }[];
}

/**
 * Claims the messages due and hands each to the mailer or SMS sender. Messages are independent: one that fails
 * is rescheduled with backoff and never holds up the others.
 */
export async function deliverDueMessages(deps: Deps, options: { limit?: number } = {}): Promise<DeliveryReport> {
  const now = deps.clock.now();
  const claim = deps.random.uuid();
  const claimed = await deps.stores.outbox.claimDue({
    now,
    limit: options.limit ?? DEFAULT_BATCH,
    leaseUntil: new Date(now.getTime() + LEASE_SECONDS * 1000),
    claim,
  });
  const outcomes = await Promise.all(claimed.map((entry) => deliverOne(deps, entry, claim)));
  const failures = outcomes.filter((outcome) => outcome !== "delivered");
  return { claimed: claimed.length, delivered: outcomes.length - failures.length, failures };
}

async function deliverOne(
  deps: Deps,
  entry: OutboxEntry,
  claim: string,
): Promise<"delivered" | DeliveryReport["failures"][number]> {
  let message: OutboundMessage;
  try {
    message = JSON.parse(deps.secrets.open(entry.sealedMessage ?? "")) as OutboundMessage;
  } catch {
    // Sealed under another key or damaged: no retry will read it either.
    return fail(deps, entry, claim, null, "the queued message cannot be opened", false);
  }
  try {
    if (message.channel === "email") await deps.mailer.send(message.email);
    else await deps.sms.send(message.sms);
  } catch (error) {
    // A message the provider refused for good (a bad number) would be refused again.
    const retry = !isAuthError(error, "sms_send_failed");
    return fail(deps, entry, claim, kindOf(message), error instanceof Error ? error.message : String(error), retry);
  }
  deps.events.record({ kind: "message_delivered", message: kindOf(message) });
  await deps.stores.outbox.markDelivered({ id: entry.id, claim }, deps.clock.now());
  return "delivered";
}

function kindOf(message: OutboundMessage): MessageKind {
  return message.channel === "email"
    ? { channel: "email", kind: message.email.kind }
    : { channel: "sms", kind: message.sms.kind };
}

async function fail(
  deps: Deps,
  entry: OutboxEntry,
  claim: string,
  message: MessageKind | null,
  error: string,
  retry: boolean,
) {
  const attempts = entry.attempts + 1;
  const nextAttemptAt = retry ? nextAttemptAfterFailure(attempts, deps.clock.now(), entry.expiresAt) : null;
  const described = describeFailure(error);
  deps.events.record({ kind: "message_failed", message, willRetry: nextAttemptAt !== null });
  await deps.stores.outbox.markFailed({ id: entry.id, claim }, { attempts, nextAttemptAt, error: described });
  return { id: entry.id, error: described, willRetry: nextAttemptAt !== null };
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
