import type { AuthSms, SmsSender } from "@latchkey/domain";
import { httpFailure } from "./http-failure.ts";
import { firstOf, objectOf, textOf } from "./json-fields.ts";
import type { MessageBirdSmsOptions } from "./options.ts";
import { bareNumber } from "./phone-number.ts";
import { isSuccessStatus, providerHttp } from "./provider-http.ts";
import { requireSettings } from "./require-settings.ts";
import { SmsProviderError } from "./sms-provider-error.ts";
import { smsRefused } from "./sms-refused.ts";
import { smsTextOf } from "./sms-text.ts";

/** MessageBird's REST API origin. */
export const MESSAGEBIRD_API_URL = "https://rest.messagebird.com";

/** An SmsSender on MessageBird's Messages API, authenticated with an access key. */
export function createMessageBirdSmsSender(options: MessageBirdSmsOptions): SmsSender {
  requireSettings("messagebird", {
    SMS_MESSAGEBIRD_ACCESS_KEY: options.accessKey,
    SMS_MESSAGEBIRD_ORIGINATOR: options.originator,
  });
  const http = providerHttp("messagebird", MESSAGEBIRD_API_URL, options);
  const authorization = `AccessKey ${options.accessKey}`;

  return {
    async send(sms: AuthSms): Promise<void> {
      const fields = {
        originator: options.originator,
        body: smsTextOf(sms, options),
        recipients: bareNumber(sms.to),
        type: "sms",
        // Unicode keeps a template in any script intact, at the cost of shorter parts, as Supabase sends it.
        datacoding: "unicode",
      };
      const answer = await http.postForm("/messages", fields, { Authorization: authorization });
      const redact = [sms.otp, options.accessKey];
      const body = objectOf(answer.body);
      if (!isSuccessStatus(answer.status)) {
        // MessageBird's error body: {errors: [{code, description, parameter}]}.
        const first = objectOf(firstOf(body?.errors));
        throw httpFailure(sms, "messagebird", answer, {
          providerCode: textOf(first?.code),
          providerMessage: textOf(first?.description),
          redact,
        });
      }
      // Not JSON: not MessageBird's answer (a captive portal, a proxy's page), so whether it was sent is unknown.
      if (body === undefined) {
        throw new SmsProviderError("messagebird", "answered without a message object", { httpStatus: answer.status });
      }
      const sentCount = objectOf(body.recipients)?.totalSentCount;
      // MessageBird's JSON without the count we read: it took the message, and another try would send it twice.
      if (typeof sentCount !== "number") return;
      // The message was created but went to no one: retrying the same recipient would fare no better.
      if (sentCount === 0) {
        const error = new SmsProviderError("messagebird", `sent message ${textOf(body?.id) ?? "?"} to no recipient`, {
          httpStatus: answer.status,
          redact,
        });
        throw smsRefused(sms, error);
      }
    },
  };
}
