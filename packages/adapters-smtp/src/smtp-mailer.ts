import { domainToASCII } from "node:url";
import type { AuthEmail, Mailer } from "@latchkey/domain";
import { createEmailRenderer } from "./email-renderer.ts";
import type { SmtpMailerOptions } from "./options.ts";
import type { RenderedEmail } from "./render-email.ts";
import { SmtpDeliveryError } from "./smtp-delivery-error.ts";
import {
  checkServer,
  SMTP_ATTEMPT_TIMEOUT_MS,
  SMTP_COMMAND_TIMEOUT_MS,
  SMTP_CONNECTION_TIMEOUT_MS,
  SMTP_GREETING_TIMEOUT_MS,
  type SmtpServer,
  sendMessage,
} from "./smtp-exchange.ts";

export interface SmtpMailer extends Mailer {
  /** Connects and authenticates once, to check the settings at start; throws SmtpDeliveryError. */
  verify(): Promise<void>;
  /** Ends the attempts in flight at once (they fail, so the outbox reschedules them) and refuses new ones. */
  close(): Promise<void>;
}

/**
 * A Mailer delivering over SMTP, each attempt on a connection of its own and bounded in time at every stage; `send`
 * throws SmtpDeliveryError so the outbox retries. A connection per mail, as GoTrue does: the outbox bounds how many
 * are open at once, and a server stuck on one mail holds that connection only, never one another mail waits for.
 */
export function createSmtpMailer(options: SmtpMailerOptions): SmtpMailer {
  const render = createEmailRenderer(options);
  const server: SmtpServer = {
    host: options.host,
    port: options.port,
    auth: options.user ? { user: options.user, pass: options.pass ?? "" } : undefined,
    connectionTimeoutMs: options.connectionTimeoutMs ?? SMTP_CONNECTION_TIMEOUT_MS,
    greetingTimeoutMs: options.greetingTimeoutMs ?? SMTP_GREETING_TIMEOUT_MS,
    commandTimeoutMs: options.commandTimeoutMs ?? SMTP_COMMAND_TIMEOUT_MS,
    attemptTimeoutMs: options.attemptTimeoutMs ?? SMTP_ATTEMPT_TIMEOUT_MS,
  };
  const closed = new AbortController();
  // An address object, so nodemailer quotes and encodes the display name itself.
  const from = { name: options.senderName || options.adminEmail, address: options.adminEmail };
  const messageIdOf = messageIds(options.adminEmail);

  return {
    async send(email, { messageId }) {
      const rendered = await render(email);
      try {
        await sendMessage(
          server,
          {
            from,
            to: rendered.to,
            subject: rendered.subject,
            text: rendered.text,
            html: rendered.html,
            messageId: messageIdOf(messageId),
            // Message bodies are our own strings: nothing may make nodemailer read files or URLs.
            disableFileAccess: true,
            disableUrlAccess: true,
          },
          closed.signal,
        );
      } catch (error) {
        throw new SmtpDeliveryError(error, secretsOf(email, rendered));
      }
    },
    async verify() {
      try {
        await checkServer(server, closed.signal);
      } catch (error) {
        throw new SmtpDeliveryError(error, []);
      }
    },
    async close() {
      closed.abort();
    },
  };
}

/**
 * `<message id@domain of SMTP_ADMIN_EMAIL>`: the same on every attempt at one outbox message, so a client shows a copy
 * sent again after a crash as the mail it already has.
 */
function messageIds(adminEmail: string): (messageId: string) => string {
  const domain = domainToASCII(adminEmail.slice(adminEmail.lastIndexOf("@") + 1)) || "latchkey.invalid";
  return (messageId) => {
    // The outbox's ids are UUIDs; anything else would need quoting in the header.
    if (!/^[A-Za-z0-9._-]+$/.test(messageId)) throw new TypeError(`not usable in a Message-ID: ${messageId}`);
    return `<${messageId}@${domain}>`;
  };
}

function secretsOf(email: AuthEmail, rendered: RenderedEmail): string[] {
  const secrets = [rendered.link ?? "", rendered.code ?? ""];
  if ("linkToken" in email) secrets.push(email.linkToken);
  return secrets;
}
