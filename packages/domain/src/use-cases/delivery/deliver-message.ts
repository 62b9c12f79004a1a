import type { Deps } from "../../deps.ts";
import {
  describeFailure,
  nextAttemptAfterFailure,
  type OutboundMessage,
  type OutboxEntry,
} from "../../model/outbox.ts";
import type { User } from "../../model/user.ts";
import type { MessageKind } from "../../ports/flow-events.ts";
import type { OutboxClaim } from "../../ports/stores.ts";
import { failsForGood, hookFor, sendMessage } from "../../services/delivery/send-message.ts";

/** A message leased to this worker: no other may attempt it until the lease (renewed while it is sent) runs out. */
export interface ClaimedMessage {
  readonly entry: OutboxEntry;
  readonly claim: string;
}

/** What one attempt came to, with the message's outbox id and kind (never its address or content) for the log. */
export type DeliveryOutcome = DeliverySuccess | DeliveryFailure;

interface DeliverySuccess {
  readonly outcome: "delivered";
  readonly id: string;
  readonly message: MessageKind;
}

export interface DeliveryFailure {
  readonly outcome: "failed";
  readonly id: string;
  /** Null when the queued message could not be opened. */
  readonly message: MessageKind | null;
  readonly error: string;
  readonly willRetry: boolean;
}

/**
 * Waits before trying again to record a delivery the server accepted. Until it is recorded, the message is sent
 * again once its lease runs out: these cover a database that restarts quickly, or a connection cut mid-statement.
 * About 3 s in all: far inside the lease, and inside the worker's drain at shutdown.
 */
const MARK_DELIVERED_RETRY_MS = [250, 1_000, 2_000] as const;

/**
 * Makes one attempt at a claimed message: delivered is recorded as soon as the server accepted it, and a failure is
 * rescheduled with backoff, unless a retry could not succeed. Rejects only when the outcome could not be recorded.
 */
export async function deliverClaimedMessage(deps: Deps, claimed: ClaimedMessage): Promise<DeliveryOutcome> {
  const { entry } = claimed;
  const held = { id: entry.id, claim: claimed.claim };
  let message: OutboundMessage;
  try {
    message = JSON.parse(deps.secrets.open(entry.sealedMessage ?? "")) as OutboundMessage;
  } catch {
    // Sealed under another key or damaged: no retry will read it either.
    return fail(deps, claimed, { message: null, error: "the queued message cannot be opened", retry: false });
  }
  try {
    // The entry's id on every attempt: a duplicate after a crash carries the same Message-ID (webhook-id) as the
    // first copy.
    await sendMessage(deps, { message, id: entry.id, user: await userOf(deps, message) });
  } catch (error) {
    // A message refused for good (a bad number, a hook's 4xx) would be refused again.
    const retry = !failsForGood(error);
    const described = error instanceof Error ? error.message : String(error);
    return fail(deps, claimed, { message: kindOf(message), error: described, retry });
  }
  // Nothing between acceptance and the mark: that gap is where a crash turns into a duplicate.
  await recordDelivered(deps, held);
  deps.events.record({ kind: "message_delivered", id: entry.id, message: kindOf(message) });
  return { outcome: "delivered", id: entry.id, message: kindOf(message) };
}

/**
 * The message's user, for its channel's hook (which is sent it); null without the hook, or once the user is gone:
 * deleted, or soft-deleted (its address and tokens erased: the message's link and code no longer work).
 */
async function userOf(deps: Deps, message: OutboundMessage): Promise<User | null> {
  if (hookFor(deps, message) === undefined) return null;
  const { users } = deps.stores;
  // A message queued before hooks were built names no user: its address does.
  const user =
    message.userId !== undefined
      ? await users.findById(message.userId)
      : message.channel === "email"
        ? await users.findByEmail(message.email.to)
        : await users.findByPhone(message.sms.to);
  return user === null || user.deletedAt !== null ? null : user;
}

async function recordDelivered(deps: Deps, held: OutboxClaim): Promise<void> {
  for (let retries = 0; ; retries += 1) {
    try {
      await deps.stores.outbox.markDelivered(held, deps.clock.now());
      return;
    } catch (error) {
      const wait = MARK_DELIVERED_RETRY_MS[retries];
      if (wait === undefined) throw error;
      await deps.clock.sleep(wait);
    }
  }
}

function kindOf(message: OutboundMessage): MessageKind {
  return message.channel === "email"
    ? { channel: "email", kind: message.email.kind }
    : { channel: "sms", kind: message.sms.kind };
}

/** A failed attempt: the message's kind (null when it could not be opened), why, and whether to try again. */
interface AttemptFailure {
  readonly message: MessageKind | null;
  readonly error: string;
  readonly retry: boolean;
}

async function fail(deps: Deps, claimed: ClaimedMessage, failure: AttemptFailure): Promise<DeliveryFailure> {
  const { entry } = claimed;
  const { message, error, retry } = failure;
  const held = { id: entry.id, claim: claimed.claim };
  const attempts = entry.attempts + 1;
  const nextAttemptAt = retry ? nextAttemptAfterFailure(attempts, deps.clock.now(), entry.expiresAt) : null;
  const described = describeFailure(error);
  deps.events.record({ kind: "message_failed", message, willRetry: nextAttemptAt !== null });
  await deps.stores.outbox.markFailed(held, { attempts, nextAttemptAt, error: described });
  return { outcome: "failed", id: entry.id, message, error: described, willRetry: nextAttemptAt !== null };
}
