import type { AuthSms, SmsSender } from "@latchkey/domain";
import { httpFailure } from "./http-failure.ts";
import { objectOf, textOf } from "./json-fields.ts";
import type { TwilioSmsOptions } from "./options.ts";
import { bareNumber, plusNumber } from "./phone-number.ts";
import { isSuccessStatus, providerHttp } from "./provider-http.ts";
import { requireSettings } from "./require-settings.ts";
import { SmsProviderError } from "./sms-provider-error.ts";
import { smsRefused } from "./sms-refused.ts";
import { smsTextOf } from "./sms-text.ts";

/** Twilio's API origin. */
export const TWILIO_API_URL = "https://api.twilio.com";

// A messaging service SID: "MG" and 32 hex digits. Anything else is a sender number (or alphanumeric sender ID).
const MESSAGING_SERVICE_SID = /^MG[0-9a-f]{32}$/i;

// A sender number (without its + and spaces, GoTrue's test), rather than an alphanumeric sender ID.
const isSenderNumber = (sender: string) => /^[1-9][0-9]{1,14}$/.test(bareNumber(sender));

// compat: with the + WhatsApp addresses need, which GoTrue leaves as configured (docs/compatibility.md, SMS).
const whatsapp = (number: string) => `whatsapp:${plusNumber(number)}`;

// Message statuses that say, already in the creating answer, that the message will not go out.
const FAILED_STATUSES = new Set(["failed", "undelivered"]);

/**
 * An SmsSender on Twilio's Programmable Messaging API, by SMS or WhatsApp, authenticated with the account SID and
 * token.
 */
export function createTwilioSmsSender(options: TwilioSmsOptions): SmsSender {
  requireSettings("twilio", {
    SMS_TWILIO_ACCOUNT_SID: options.accountSid,
    SMS_TWILIO_AUTH_TOKEN: options.authToken,
    SMS_TWILIO_MESSAGE_SERVICE_SID: options.messageServiceSid,
  });
  const http = providerHttp("twilio", TWILIO_API_URL, options);
  const path = `/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString("base64")}`;
  // A messaging service picks the sender from its pool; otherwise the setting is the sender itself.
  const sender: Readonly<Record<string, string>> = MESSAGING_SERVICE_SID.test(options.messageServiceSid)
    ? { MessagingServiceSid: options.messageServiceSid }
    : { From: options.messageServiceSid };

  /** The form of one message: WhatsApp's addresses are `whatsapp:` and the number, as GoTrue writes them. */
  const fieldsOf = (sms: AuthSms): Record<string, string> => {
    if (sms.channel !== "whatsapp") return { To: plusNumber(sms.to), ...sender, Body: smsTextOf(sms, options) };
    // A messaging service picks its WhatsApp sender by the recipient's prefix; a number is named as one. An
    // alphanumeric sender stays as it is, as GoTrue leaves it, and Twilio refuses it for WhatsApp.
    const from = sender.From !== undefined && isSenderNumber(sender.From) ? { From: whatsapp(sender.From) } : sender;
    const content: Record<string, string> = options.contentSid
      ? { ContentSid: options.contentSid, ContentVariables: JSON.stringify({ 1: sms.otp }) }
      : { Body: smsTextOf(sms, options) };
    return { To: whatsapp(sms.to), ...from, ...content };
  };

  return {
    sendsWhatsapp: true,
    async send(sms: AuthSms): Promise<void> {
      const fields = fieldsOf(sms);
      const answer = await http.postForm(path, fields, { Authorization: authorization });
      const redact = [sms.otp, options.authToken];
      const body = objectOf(answer.body);
      if (!isSuccessStatus(answer.status)) {
        // Twilio's error body: {code, message, more_info, status}.
        throw httpFailure(sms, "twilio", answer, {
          providerCode: textOf(body?.code),
          providerMessage: textOf(body?.message),
          redact,
        });
      }
      // Not JSON: not Twilio's answer (a captive portal, a proxy's page), so whether it was sent is unknown.
      if (body === undefined) {
        throw new SmsProviderError("twilio", "answered without a message resource", { httpStatus: answer.status });
      }
      const status = textOf(body.status);
      const errorCode = textOf(body.error_code);
      if ((status !== undefined && FAILED_STATUSES.has(status)) || errorCode !== undefined) {
        const error = new SmsProviderError("twilio", `created message ${textOf(body.sid) ?? "?"} as ${status ?? "?"}`, {
          httpStatus: answer.status,
          providerCode: errorCode,
          providerMessage: textOf(body.error_message),
          redact,
        });
        throw smsRefused(sms, error);
      }
    },
  };
}
