/**
 * The SMS the domain asks for; the adapter writes the text (SMS_TEMPLATE, "Your code is {{ .Code }}" by default;
 * MFA_PHONE_TEMPLATE for `mfa`). `otp`: a sign-in code; `confirmation`: a signup's; `phone_change`: to confirm a
 * new number; `mfa`: a phone factor's challenge.
 */
export type AuthSms = {
  readonly kind: "confirmation" | "otp" | "phone_change" | "reauthentication" | "mfa";
  readonly to: string;
  readonly otp: string;
};

export interface SmsSender {
  /**
   * Sends one SMS. Throws AuthError `sms_send_failed` (without the provider's internals) when the provider refuses
   * the message for good: a bad number, rejected credentials. Throws any other error when the outcome is unknown
   * or may change (network, timeouts, the provider's 5xx): the outbox retries those.
   */
  send(sms: AuthSms): Promise<void>;
}
