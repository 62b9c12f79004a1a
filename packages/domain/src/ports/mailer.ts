import type { AuthEmail } from "../model/mail.ts";

// The mails themselves are domain data (model/mail.ts); the one the port takes is named here too.
export type { AuthEmail } from "../model/mail.ts";

/** What stays the same on every attempt at one email. */
export interface MailDelivery {
  /**
   * The outbox message's id. The mailer gives the mail an id derived from it alone (SMTP: the Message-ID), so a
   * copy sent again after a crash is the same mail to the recipient's client, which shows it once.
   */
  readonly messageId: string;
}

export interface Mailer {
  /**
   * Sends one email and resolves once the mail server has accepted it; throws when the server refuses it, cannot be
   * reached or does not answer in time (the outbox retries). Either way it ends within a bounded time, so a stuck
   * server fails an attempt instead of holding it, and the lease the worker renews meanwhile, for ever.
   */
  send(email: AuthEmail, delivery: MailDelivery): Promise<void>;
}
