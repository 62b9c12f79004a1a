import { AuthError, type AuthSms } from "@latchkey/domain";
import type { SmsProviderError } from "./sms-provider-error.ts";

// GoTrue's words for the OTP in "Error sending … OTP to provider"; its sign-in OTPs are confirmation OTPs too. A
// phone factor's challenge is ours: GoTrue answers a challenge it could not send with 500 "error sending message".
const OTP_LABELS: Readonly<Record<AuthSms["kind"], string>> = {
  confirmation: "confirmation",
  otp: "confirmation",
  phone_change: "phone_change",
  reauthentication: "reauthentication",
  mfa: "mfa",
};

/**
 * AuthError `sms_send_failed` for a message the provider refused for good. The message is GoTrue's without its
 * provider suffix: the provider's text, codes and account identifiers stay in `cause`, for the server log.
 */
export function smsRefused(sms: AuthSms, cause: SmsProviderError): AuthError {
  return new AuthError("sms_send_failed", `Error sending ${OTP_LABELS[sms.kind]} OTP to provider`, { cause });
}
