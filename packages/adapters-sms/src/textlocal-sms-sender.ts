import type { AuthSms, SmsSender } from "@latchkey/domain";
import { httpFailure } from "./http-failure.ts";
import { firstOf, objectOf, textOf } from "./json-fields.ts";
import type { TextlocalSmsOptions } from "./options.ts";
import { bareNumber } from "./phone-number.ts";
import { isSuccessStatus, providerHttp } from "./provider-http.ts";
import { requireSettings } from "./require-settings.ts";
import { SmsProviderError } from "./sms-provider-error.ts";
import { smsRefused } from "./sms-refused.ts";
import { smsTextOf } from "./sms-text.ts";

/**
 * Textlocal's API origin: Supabase's, the Indian service (api.textlocal.in), whose API keys GoTrue
 * deployments hold. Accounts of the UK service set baseUrl to https://api.txtlocal.com.
 */
export const TEXTLOCAL_API_URL = "https://api.textlocal.in";

/** An SmsSender on Textlocal's send command, authenticated with an API key. */
export function createTextlocalSmsSender(options: TextlocalSmsOptions): SmsSender {
  requireSettings("textlocal", { SMS_TEXTLOCAL_API_KEY: options.apiKey, SMS_TEXTLOCAL_SENDER: options.sender });
  const http = providerHttp("textlocal", TEXTLOCAL_API_URL, options);

  return {
    async send(sms: AuthSms): Promise<void> {
      const fields = {
        apikey: options.apiKey,
        sender: options.sender,
        numbers: bareNumber(sms.to),
        message: smsTextOf(sms, options),
      };
      const answer = await http.postForm("/send/", fields);
      const redact = [sms.otp, options.apiKey];
      const body = objectOf(answer.body);
      // Textlocal reports its errors in the body, {status: "failure", errors: [{code, message}]}, mostly with a 200.
      const first = objectOf(firstOf(body?.errors));
      const said = { providerCode: textOf(first?.code), providerMessage: textOf(first?.message), redact };
      if (!isSuccessStatus(answer.status)) throw httpFailure(sms, "textlocal", answer, said);
      const status = textOf(body?.status);
      if (status === "success") return;
      if (status === "failure") {
        throw smsRefused(
          sms,
          new SmsProviderError("textlocal", "refused the SMS", { httpStatus: answer.status, ...said }),
        );
      }
      // Not JSON: not Textlocal's answer (a captive portal, a proxy's page), so whether it was sent is unknown.
      // Textlocal's JSON without a status took the message, and another try would send it twice.
      if (body === undefined)
        throw new SmsProviderError("textlocal", "answered without a status", { httpStatus: answer.status });
    },
  };
}
