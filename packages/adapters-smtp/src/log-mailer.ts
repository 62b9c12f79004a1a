import type { Mailer } from "@latchkey/domain";
import { createEmailRenderer } from "./email-renderer.ts";
import type { LogMailerOptions } from "./options.ts";

/**
 * A Mailer for the development profile: renders exactly as the SMTP mailer does, then hands the subject, recipient,
 * text, link and code to `write` (the log) so a developer can follow the link without a mail server.
 */
export function createLogMailer(options: LogMailerOptions): Mailer {
  const render = createEmailRenderer(options);
  return {
    async send(email, { messageId }) {
      const { to, subject, text, link, code } = await render(email);
      options.write({
        messageId,
        to,
        subject,
        text,
        ...(link === undefined ? {} : { link }),
        ...(code === undefined ? {} : { code }),
      });
    },
  };
}
