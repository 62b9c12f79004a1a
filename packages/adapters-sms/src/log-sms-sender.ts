import type { AuthSms, SmsChannel, SmsSender } from "@latchkey/domain";
import { smsTextOf } from "./sms-text.ts";

/** What the log SMS sender writes for each SMS. */
export interface LoggedSms {
  readonly kind: AuthSms["kind"];
  readonly to: string;
  readonly channel: SmsChannel;
  readonly text: string;
  readonly code: string;
}

export interface LogSmsSenderOptions {
  /** SMS_TEMPLATE, as a provider would use it. */
  readonly template?: string | undefined;
  /** MFA_PHONE_TEMPLATE, for a phone factor's challenge. */
  readonly mfaTemplate?: string | undefined;
  /** Receives each SMS instead of a provider. */
  readonly write: (sms: LoggedSms) => void;
}

/**
 * An SmsSender for the development profile without an SMS provider: the text is written as a provider would send
 * it, and handed with its code to `write` (the log), for a developer to type the code. It stands for whichever
 * provider production will use, so it takes WhatsApp too, and says which channel the code would have gone by.
 */
export function createLogSmsSender(options: LogSmsSenderOptions): SmsSender {
  return {
    sendsWhatsapp: true,
    async send(sms) {
      const channel = sms.channel ?? "sms";
      options.write({ kind: sms.kind, to: sms.to, channel, text: smsTextOf(sms, options), code: sms.otp });
    },
  };
}
