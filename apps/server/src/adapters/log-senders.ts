import type { AuthSms, LinkFields, Mailer, SmsSender } from "@latchkey/domain";
import type { Logger } from "pino";

export interface LogSenderOptions {
  /** API_EXTERNAL_URL: links point there, never at whatever Host a request carried. */
  readonly externalUrl: string;
  /** MAILER_URLPATHS_CONFIRMATION */
  readonly confirmationPath: string;
  /**
   * Development only: write links and codes so a developer can follow them. Elsewhere a line records that a
   * message was due, without anything that could be used to act on it.
   */
  readonly reveal: boolean;
}

function verificationLink(options: LogSenderOptions, email: LinkFields): string {
  const url = new URL(options.externalUrl);
  url.pathname = `${url.pathname.replace(/\/$/, "")}${options.confirmationPath}`;
  url.searchParams.set("token", email.linkToken);
  url.searchParams.set("type", email.linkType);
  url.searchParams.set("redirect_to", email.redirectTo);
  return url.toString();
}

/** Writes each email to the log (the current request's, so the line carries its id) instead of sending it. */
export function createLogMailer(currentLog: () => Logger, options: LogSenderOptions): Mailer {
  return {
    async send(email) {
      const log = currentLog();
      if (!options.reveal) {
        log.warn({ mail: { kind: email.kind, to: email.to } }, "mail not sent: no mail delivery is configured");
        return;
      }
      const link = "linkToken" in email ? { link: verificationLink(options, email) } : {};
      const code = "otp" in email ? { code: email.otp } : {};
      log.info({ mail: { kind: email.kind, to: email.to, ...link, ...code } }, "mail not sent (development profile), written here instead");
    },
  };
}

/** Writes each SMS to the log instead of sending it. */
export function createLogSmsSender(currentLog: () => Logger, options: Pick<LogSenderOptions, "reveal">): SmsSender {
  return {
    async send(sms: AuthSms) {
      const log = currentLog();
      if (!options.reveal) {
        log.warn({ sms: { kind: sms.kind, to: sms.to } }, "SMS not sent: no SMS provider is configured");
        return;
      }
      log.info({ sms: { kind: sms.kind, to: sms.to, code: sms.otp } }, "SMS not sent (development profile), written here instead");
    },
  };
}
