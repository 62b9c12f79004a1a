import type { Deps } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { AuthEmail } from "../../model/mail.ts";
import type { EmailChangeMail } from "../../model/outbox.ts";
import type { Stores } from "../../ports/stores.ts";
import { refusedBy } from "../abuse/refusal.ts";
import { enqueueMessage } from "./enqueue.ts";

/** RATE_LIMIT_EMAIL_SENT's counter: every mail someone asked for, whatever its kind or address. */
const EMAIL_QUOTA = "email_sent";

/**
 * Refuses with GoTrue's 429 once RATE_LIMIT_EMAIL_SENT is spent (across every instance when the rate limiter is
 * shared), counting nothing. security: called before the address is looked up, alike for every address, so the
 * refusal tells nothing about accounts; the quota is spent only by mail actually queued (queueEmail), so requests
 * that mail nobody (unknown addresses) cannot stop the mail of everyone else. Notifications of changes already
 * made are neither checked nor counted: they must not be lost to a quota someone else exhausted.
 */
export async function assertEmailQuotaLeft(deps: Deps): Promise<void> {
  const decision = await deps.rateLimiter.peek(EMAIL_QUOTA, deps.policy.email.sendLimit.events);
  if (!decision.allowed) {
    throw refusedBy(
      deps,
      "email_quota",
      new AuthError("over_email_send_rate_limit", "email rate limit exceeded", {
        retryAfterSeconds: decision.retryAfterSeconds,
      }),
    );
  }
}

/**
 * Queues a mail someone asked for in the caller's transaction, spending one of RATE_LIMIT_EMAIL_SENT on it. The
 * caller checked there was room (assertEmailQuotaLeft) before it looked anything up; requests in flight together
 * may overrun the quota by a few, which is better than an answer that depends on whether this one mailed.
 * Returns the message id.
 */
export async function queueEmail(deps: Deps, stores: Stores, queued: QueuedEmail): Promise<string> {
  const { events, perSeconds } = deps.policy.email.sendLimit;
  await deps.rateLimiter.consume(EMAIL_QUOTA, events, perSeconds);
  const { email, userId, alongside, expiresAt } = queued;
  return enqueueMessage(
    deps,
    stores,
    { channel: "email", email, userId, ...(alongside ? { alongside } : {}) },
    { expiresAt },
  );
}

/** A mail someone asked for: whose it is, until when it is worth sending, and a mail that rides with it. */
interface QueuedEmail {
  readonly email: AuthEmail;
  readonly userId: string;
  readonly expiresAt: Date;
  /** See OutboundMessage. */
  readonly alongside?: EmailChangeMail;
}
