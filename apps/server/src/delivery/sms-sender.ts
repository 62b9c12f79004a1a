import { createLogSmsSender, createSmsSender, type SmsSenderOptions } from "@latchkey/adapters-sms";
import { AuthError, type SmsSender } from "@latchkey/domain";
import type { Logger } from "pino";
import type { Config } from "../config/index.ts";

/**
 * The configured SMS provider. Without one, the development profile writes each SMS to the log, code included, for
 * a developer to type; the production profile refuses to send, and the request with it, as GoTrue does (500
 * "Unable to get SMS provider"): a code that nobody receives is worse than an error the operator sees.
 */
export function createConfiguredSmsSender(config: Config, log: Logger): SmsSender {
  const provider = config.sms.provider;
  if (!provider) return config.profile === "development" ? logSmsSender(config, log) : noSmsProvider;
  const common = {
    template: config.sms.template,
    mfaTemplate: config.sms.mfaTemplate,
    ...(config.sms.apiUrl ? { baseUrl: config.sms.apiUrl } : {}),
  };
  // The credentials are declared under the adapter's own option names (settings.ts, sms.<provider>), and the
  // configuration's checks made sure the chosen provider's are set; the adapter checks again that none is empty.
  return createSmsSender({ provider, ...config.sms[provider], ...common } as SmsSenderOptions);
}

/**
 * The line carries no request id: tying it to its request would take a request scope (AsyncLocalStorage), whose
 * promise hooks every request would pay for on Node 20.
 */
function logSmsSender(config: Config, log: Logger): SmsSender {
  return createLogSmsSender({
    template: config.sms.template,
    mfaTemplate: config.sms.mfaTemplate,
    write: ({ kind, to, channel, code }) =>
      log.info({ sms: { kind, to, channel, code } }, "SMS not sent (development profile), written here instead"),
  });
}

const noSmsProvider: SmsSender = {
  async send() {
    throw new AuthError("unexpected_failure", "Unable to get SMS provider");
  },
};
