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
