import type { AuthEmail } from "../model/mail.ts";
import type { AuthSms } from "../model/sms.ts";
import type { MailDelivery, Mailer } from "../ports/mailer.ts";
import type { SmsSender } from "../ports/sms-sender.ts";

/** Keeps every email it is asked to send. */
export class RecordingMailer implements Mailer {
  readonly sent: AuthEmail[] = [];
  /** The message id each was sent under, in the same order. */
  readonly messageIds: string[] = [];

  async send(email: AuthEmail, delivery: MailDelivery): Promise<void> {
    this.sent.push(email);
    this.messageIds.push(delivery.messageId);
  }

  /** The latest email to `to`, if any. */
  lastTo(to: string): AuthEmail | undefined {
    return this.sent.filter((email) => email.to === to).at(-1);
  }
}

/** Keeps every SMS it is asked to send; SMS only, unless made as a provider that sends WhatsApp too. */
export class RecordingSmsSender implements SmsSender {
  readonly sent: AuthSms[] = [];

  constructor(readonly sendsWhatsapp = false) {}

  async send(sms: AuthSms): Promise<void> {
    this.sent.push(sms);
  }

  lastTo(to: string): AuthSms | undefined {
    return this.sent.filter((sms) => sms.to === to).at(-1);
  }
}
