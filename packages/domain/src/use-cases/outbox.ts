import { nextAttemptAfterFailure, type OutboundMessage, type OutboxEntry } from "../model/outbox.ts";
import type { Stores } from "../ports/stores.ts";
import type { Deps } from "./deps.ts";

/** How long a claim keeps other workers off a message: longer than any send may take. */
const LEASE_SECONDS = 120;
const DEFAULT_BATCH = 20;

/** Queues a message in the caller's transaction and returns its id (GoTrue's `message_id`). */
export async function enqueueMessage(deps: Deps, stores: Stores, message: OutboundMessage, expiresAt: Date): Promise<string> {
  const now = deps.clock.now();
  const id = deps.random.uuid();
  await stores.outbox.enqueue({
    id,
    channel: message.channel,
    sealedMessage: deps.secrets.seal(JSON.stringify(message)),
    createdAt: now,
    nextAttemptAt: now,
    expiresAt,
    attempts: 0,
    deliveredAt: null,
    lastError: null,
  });
  return id;
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
  const claimed = await deps.stores.outbox.claimDue({
    now,
    limit: options.limit ?? DEFAULT_BATCH,
    leaseUntil: new Date(now.getTime() + LEASE_SECONDS * 1000),
  });
  const outcomes = await Promise.all(claimed.map((entry) => deliverOne(deps, entry)));
  const failures = outcomes.filter((outcome) => outcome !== "delivered");
  return { claimed: claimed.length, delivered: outcomes.length - failures.length, failures };
}

async function deliverOne(deps: Deps, entry: OutboxEntry): Promise<"delivered" | DeliveryReport["failures"][number]> {
  let message: OutboundMessage;
  try {
    message = JSON.parse(deps.secrets.open(entry.sealedMessage ?? "")) as OutboundMessage;
  } catch {
    // Sealed under another key or damaged: no retry will read it either.
    return fail(deps, entry, "the queued message cannot be opened", false);
  }
  try {
    if (message.channel === "email") await deps.mailer.send(message.email);
    else await deps.sms.send(message.sms);
  } catch (error) {
    return fail(deps, entry, error instanceof Error ? error.message : String(error), true);
  }
  await deps.stores.outbox.markDelivered(entry.id, deps.clock.now());
  return "delivered";
}

async function fail(deps: Deps, entry: OutboxEntry, error: string, retry: boolean) {
  const attempts = entry.attempts + 1;
  const nextAttemptAt = retry ? nextAttemptAfterFailure(attempts, deps.clock.now(), entry.expiresAt) : null;
  const described = error.slice(0, 500);
  await deps.stores.outbox.markFailed(entry.id, { attempts, nextAttemptAt, error: described });
  return { id: entry.id, error: described, willRetry: nextAttemptAt !== null };
}
