import type { AuthSms, SmsSender } from "@latchkey/domain";
import type { Logger } from "pino";

/**
 * Writes each SMS to the log instead of sending it, until an SMS provider is configured. In the development
 * profile the code is written, for a developer to use; elsewhere only that an SMS was due. The line carries no
 * request id: tying it to its request would take a request scope (AsyncLocalStorage), whose promise hooks every
 * request would pay for on Node 20.
 */
export function createLogSmsSender(log: Logger, options: { readonly reveal: boolean }): SmsSender {
  return {
    async send(sms: AuthSms) {
      if (!options.reveal) {
        log.warn({ sms: { kind: sms.kind, to: sms.to } }, "SMS not sent: no SMS provider is configured");
        return;
      }
      log.info({ sms: { kind: sms.kind, to: sms.to, code: sms.otp } }, "SMS not sent (development profile), written here instead");
    },
  };
}
