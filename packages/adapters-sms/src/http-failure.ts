import type { AuthSms } from "@latchkey/domain";
import type { SmsProviderName } from "./options.ts";
import { isRefusalStatus, type ProviderAnswer } from "./provider-http.ts";
import { SmsProviderError, type SmsProviderErrorDetails } from "./sms-provider-error.ts";
import { smsRefused } from "./sms-refused.ts";

/**
 * The error for a provider's non-2xx answer: AuthError `sms_send_failed` when the status says it refuses for good,
 * else SmsProviderError, for the caller to retry.
 */
export function httpFailure(
  sms: AuthSms,
  provider: SmsProviderName,
  answer: ProviderAnswer,
  details: Pick<SmsProviderErrorDetails, "providerCode" | "providerMessage" | "redact">,
): Error {
  const refused = isRefusalStatus(answer.status);
  const error = new SmsProviderError(provider, refused ? "refused the SMS" : "failed to take the SMS", {
    ...details,
    httpStatus: answer.status,
  });
  return refused ? smsRefused(sms, error) : error;
}
