import type { AuthEmail } from "./mail.ts";
import type { AuthSms } from "./sms.ts";

export type EmailChangeMail = Extract<AuthEmail, { kind: "email_change" }>;

/**
 * A message to deliver. `userId` names whose it is, for the send_email and send_sms hooks, which are sent the user
 * (absent from messages queued before hooks were built).
 */
export type OutboundMessage =
  | {
      readonly channel: "email";
      readonly email: AuthEmail;
      readonly userId?: string;
      /**
       * With the send_email hook on, an email change's mail to the current address rides with the new address's, so
       * that the hook is called once with both tokens, as GoTrue calls it (services/hooks/send-email.ts).
       */
      readonly alongside?: EmailChangeMail;
    }
  | { readonly channel: "sms"; readonly sms: AuthSms; readonly userId?: string };

/**
 * A message waiting in the outbox. It is written in the transaction of the change that calls for it, so neither
 * exists without the other, and delivered afterwards by whichever instance claims it first.
 */
export interface OutboxEntry {
  readonly id: string;
  readonly channel: OutboundMessage["channel"];
  /** The message, sealed: until delivered it carries live tokens. Null once delivered or given up. */
  readonly sealedMessage: string | null;
  readonly createdAt: Date;
  /** When the next attempt is due; null once delivered or given up. */
  readonly nextAttemptAt: Date | null;
  /** No attempt is made after this: the tokens it carries would no longer work. */
  readonly expiresAt: Date;
  readonly attempts: number;
  readonly deliveredAt: Date | null;
  /** Why the last attempt failed, for operators; never the message. */
  readonly lastError: string | null;
}

/** The first retry comes quickly (a mail server restarting), later ones back off to a few minutes. */
export const FIRST_RETRY_SECONDS = 2;
export const LONGEST_RETRY_SECONDS = 300;

/** When to try again after `attempts` failed attempts; null when that would be too late to be of use. */
export function nextAttemptAfterFailure(attempts: number, now: Date, expiresAt: Date): Date | null {
  const delaySeconds = Math.min(FIRST_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1), LONGEST_RETRY_SECONDS);
  const next = new Date(now.getTime() + delaySeconds * 1000);
  return next.getTime() < expiresAt.getTime() ? next : null;
}

/** What an entry keeps of a failure: a bounded text for operators. */
export function describeFailure(error: string): string {
  return error.slice(0, 500);
}
