import { confirmationUrl, createLogMailer, createSmtpMailer, type MailerOptions } from "@latchkey/adapters-smtp";
import type { LinkEmail, Mailer } from "@latchkey/domain";
import type { Logger } from "pino";
import type { Config } from "../config/index.ts";

export interface ConfiguredMailer {
  readonly mailer: Mailer;
  /** Connects to the SMTP server and hangs up, to check the settings; absent when mail is written to the log. */
  readonly verify: (() => Promise<void>) | undefined;
  close(): Promise<void>;
}

/**
 * SMTP when it is configured (always, outside the development profile); otherwise each mail is rendered exactly
 * as it would be sent and written to the log, link and code included, for a developer to follow.
 */
export function createMailer(config: Config, log: Logger): ConfiguredMailer {
  const options: MailerOptions = {
    externalUrl: config.api.externalUrl,
    siteUrl: config.siteUrl,
    urlPaths: config.mailer.urlPaths,
    subjects: config.mailer.subjects,
    templates: config.mailer.templates,
    onTemplateError: (url, reason) =>
      log.warn({ template: url, reason }, "mail template unavailable; the built-in body is used"),
  };
  if (config.smtp) {
    const { host, port, user, pass, adminEmail, senderName } = config.smtp;
    const smtp = createSmtpMailer({ ...options, host, port, user, pass, adminEmail, senderName });
    return { mailer: smtp, verify: () => smtp.verify(), close: () => smtp.close() };
  }
  const mailer = createLogMailer({
    ...options,
    write: ({ messageId, to, subject, link, code }) =>
      log.info(
        { mail: { message_id: messageId, to, subject, link, code } },
        "mail not sent (development profile), written here instead",
      ),
  });
  return { mailer, verify: undefined, close: async () => undefined };
}

/** The link of a mail that is not sent (POST /admin/generate_link), built exactly as a sent mail's. */
export function createActionLink(config: Config): (email: LinkEmail) => string {
  return (email) =>
    confirmationUrl(email, {
      externalUrl: config.api.externalUrl,
      siteUrl: config.siteUrl,
      urlPaths: config.mailer.urlPaths,
    });
}
