import type { SmsSender } from "@latchkey/domain";
import { createMessageBirdSmsSender } from "./messagebird-sms-sender.ts";
import type { SmsSenderOptions } from "./options.ts";
import { createTextlocalSmsSender } from "./textlocal-sms-sender.ts";
import { createTwilioSmsSender } from "./twilio-sms-sender.ts";
import { createVonageSmsSender } from "./vonage-sms-sender.ts";

/** The SmsSender of the configured provider (SMS_PROVIDER); throws when one of its settings is empty. */
export function createSmsSender(options: SmsSenderOptions): SmsSender {
  switch (options.provider) {
    case "twilio":
      return createTwilioSmsSender(options);
    case "messagebird":
      return createMessageBirdSmsSender(options);
    case "textlocal":
      return createTextlocalSmsSender(options);
    case "vonage":
      return createVonageSmsSender(options);
  }
}
