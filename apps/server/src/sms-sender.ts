import { createSmsSender, type SmsSenderOptions } from "@latchkey/adapters-sms";
import type { SmsSender } from "@latchkey/domain";
import type { Logger } from "pino";
import { createLogSmsSender } from "./adapters/log-senders.ts";
import type { Config, SmsProviderConfig } from "./config/index.ts";

/**
 * The configured SMS provider; without one, each SMS is written to the log (its code too in the development
 * profile, for a developer to type).
 */
export function createConfiguredSmsSender(config: Config, log: Logger): SmsSender {
  const provider = config.sms.provider;
  if (!provider) return createLogSmsSender(log, { reveal: config.profile === "development" });
  const common = { template: config.sms.template, ...(config.sms.apiUrl ? { baseUrl: config.sms.apiUrl } : {}) };
  return createSmsSender({ ...providerOptions(provider), ...common });
}

function providerOptions(provider: SmsProviderConfig): SmsSenderOptions {
  switch (provider.name) {
    case "twilio":
      return { provider: "twilio", accountSid: provider.accountSid, authToken: provider.authToken, messageServiceSid: provider.messageServiceSid };
    case "messagebird":
      return { provider: "messagebird", accessKey: provider.accessKey, originator: provider.originator };
    case "textlocal":
      return { provider: "textlocal", apiKey: provider.apiKey, sender: provider.sender };
    case "vonage":
      return { provider: "vonage", apiKey: provider.apiKey, apiSecret: provider.apiSecret, from: provider.from };
  }
}
