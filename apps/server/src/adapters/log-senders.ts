import type { AuthSms, SmsSender } from "@latchkey/domain";
import type { Logger } from "pino";

/**
 * Writes each SMS to the log, code included, instead of sending it: the development profile without an SMS
 * provider, for a developer to type the code. The line carries no request id: tying it to its request would take
 * a request scope (AsyncLocalStorage), whose promise hooks every request would pay for on Node 20.
 */
export function createLogSmsSender(log: Logger): SmsSender {
  return {
    async send(sms: AuthSms) {
      log.info({ sms: { kind: sms.kind, to: sms.to, code: sms.otp } }, "SMS not sent (development profile), written here instead");
    },
  };
}
