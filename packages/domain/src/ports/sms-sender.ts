/**
 * The SMS the domain asks for; the adapter writes the text (SMS_TEMPLATE, "Your code is {{ .Code }}" by default;
 * MFA_PHONE_TEMPLATE for `mfa`). `otp`: a sign-in code; `confirmation`: a signup's; `phone_change`: to confirm a
 * new number; `mfa`: a phone factor's challenge.
 */
export type AuthSms = {
  readonly kind: "confirmation" | "otp" | "phone_change" | "reauthentication" | "mfa";
  readonly to: string;
  readonly otp: string;
  /** Absent: `sms`. `whatsapp` only through a sender that says it sends it (`sendsWhatsapp`). */
  readonly channel?: SmsChannel;
};

/** How a code reaches a phone, GoTrue's `channel`: a text message, or a WhatsApp message. */
export type SmsChannel = "sms" | "whatsapp";

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
