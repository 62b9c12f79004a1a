import type { AuthSms } from "../model/sms.ts";

// The messages themselves are domain data (model/sms.ts); named here too, for the adapters that send them.
export type { AuthSms, SmsChannel } from "../model/sms.ts";

export interface SmsSender {
  /** Whether it sends `whatsapp` messages too (Twilio does); absent: SMS only, and the domain refuses WhatsApp. */
  readonly sendsWhatsapp?: boolean;
  /**
   * Sends one SMS. Throws AuthError `sms_send_failed` (without the provider's internals) when the provider refuses
   * the message for good: a bad number, rejected credentials. Throws any other error when the outcome is unknown
   * or may change (network, timeouts, the provider's 5xx): the outbox retries those.
   */
  send(sms: AuthSms): Promise<void>;
}
