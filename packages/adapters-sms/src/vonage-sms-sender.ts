import type { AuthSms, SmsSender } from "@latchkey/domain";
import { httpFailure } from "./http-failure.ts";
import { objectOf, textOf } from "./json-fields.ts";
import type { VonageSmsOptions } from "./options.ts";
import { bareNumber } from "./phone-number.ts";
import { isSuccessStatus, providerHttp } from "./provider-http.ts";
import { requireSettings } from "./require-settings.ts";
import { SmsProviderError } from "./sms-provider-error.ts";
import { smsRefused } from "./sms-refused.ts";
import { smsTextOf } from "./sms-text.ts";

/** Vonage's (formerly Nexmo's) SMS API origin. */
export const VONAGE_API_URL = "https://rest.nexmo.com";

// Message statuses that may pass: 1 Throttled, 5 Internal Error (Vonage's own). Every other non-zero one is lasting:
// bad credentials or parameters, barred number or account, no balance, unroutable destination.
const PASSING_STATUSES = new Set(["1", "5"]);

/** An SmsSender on Vonage's SMS API, authenticated with the API key and secret in the form. */
export function createVonageSmsSender(options: VonageSmsOptions): SmsSender {
  requireSettings("vonage", {
    SMS_VONAGE_API_KEY: options.apiKey,
    SMS_VONAGE_API_SECRET: options.apiSecret,
    SMS_VONAGE_FROM: options.from,
  });
  const http = providerHttp("vonage", VONAGE_API_URL, options);

  return {
    async send(sms: AuthSms): Promise<void> {
      const text = smsTextOf(sms, options);
      const fields: Record<string, string> = {
        api_key: options.apiKey,
        api_secret: options.apiSecret,
        from: options.from,
        to: bareNumber(sms.to),
        text,
      };
      // Vonage sends GSM-7 text unless told otherwise, which garbles anything outside ASCII.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is all of ASCII, control characters included.
      if (!/^[\x00-\x7f]*$/.test(text)) fields.type = "unicode";
      const answer = await http.postForm("/sms/json", fields);
      const redact = [sms.otp, options.apiKey, options.apiSecret];
      if (!isSuccessStatus(answer.status)) throw httpFailure(sms, "vonage", answer, { redact });
      // One entry per SMS part, each with its status ("0" is success) and, when not, an error-text.
      const body = objectOf(answer.body);
      // Not JSON: not Vonage's answer (a captive portal, a proxy's page), so whether it was sent is unknown.
      if (body === undefined)
        throw new SmsProviderError("vonage", "answered without message statuses", { httpStatus: answer.status });
      const messages: readonly unknown[] = Array.isArray(body.messages) ? body.messages : [];
      // Vonage's JSON without statuses took the message, and another try would send it twice.
      if (messages.length === 0) return;
      const statuses = messages.map((message) => textOf(objectOf(message)?.status));
      // Once any part went out, the code is on its way (it fits one part); another try would send it twice.
      if (statuses.includes("0")) return;
      const failed = objectOf(messages[0]);
      const status = statuses[0];
      const error = new SmsProviderError("vonage", "did not send the SMS", {
        httpStatus: answer.status,
        providerCode: status,
        providerMessage: textOf(failed?.["error-text"]),
        redact,
      });
      throw status !== undefined && PASSING_STATUSES.has(status) ? error : smsRefused(sms, error);
    },
  };
}
