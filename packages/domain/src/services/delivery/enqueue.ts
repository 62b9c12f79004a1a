import type { Deps } from "../../deps.ts";
import {
  describeFailure,
  nextAttemptAfterFailure,
  type OutboundMessage,
  type OutboxEntry,
} from "../../model/outbox.ts";
import type { Stores } from "../../ports/stores.ts";

/** What became of a first attempt the caller made itself, before queueing (see sms-codes.ts). */
type FirstAttempt = { readonly outcome: "delivered" } | { readonly outcome: "failed"; readonly error: string };

/** How a message is queued: until when it may go, and, after a first attempt of the caller's, its outcome and id. */
interface Queueing {
  readonly expiresAt: Date;
  readonly firstAttempt?: FirstAttempt;
  readonly id?: string;
}

/**
 * Queues a message in the caller's transaction and returns its id (GoTrue's `message_id`). After a first attempt
 * of the caller's, it is recorded as delivered (keeping nothing of the message), or due again after the backoff.
 */
export async function enqueueMessage(
  deps: Deps,
  stores: Stores,
  message: OutboundMessage,
  { expiresAt, firstAttempt, id = deps.random.uuid() }: Queueing,
): Promise<string> {
  const now = deps.clock.now();
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
