import type { AuthEmail, Mailer } from "@latchkey/domain";
import nodemailer from "nodemailer";
import type SMTPPool from "nodemailer/lib/smtp-pool";
import { createEmailRenderer } from "./email-renderer.ts";
import type { SmtpMailerOptions } from "./options.ts";
import type { RenderedEmail } from "./render-email.ts";
import { SmtpDeliveryError } from "./smtp-delivery-error.ts";

export interface SmtpMailer extends Mailer {
  /** Connects and authenticates once, to check the settings at start; throws SmtpDeliveryError. */
  verify(): Promise<void>;
  /** Closes the pooled connections (a mail being sent finishes first). */
  close(): Promise<void>;
}

// nodemailer's types lack this pool option: without it a connection closed mid-send requeues the mail forever.
type PoolOptions = SMTPPool.Options & { readonly maxRequeues: number };

/** A Mailer delivering over one pooled SMTP transport; `send` throws SmtpDeliveryError so the outbox retries. */
export function createSmtpMailer(options: SmtpMailerOptions): SmtpMailer {
  const render = createEmailRenderer(options);
  const poolOptions: PoolOptions = {
    pool: true,
    host: options.host,
    port: options.port,
    // Implicit TLS on 465; elsewhere nodemailer upgrades with STARTTLS whenever the server offers it, and a failed
    // upgrade fails the send rather than falling back to plain text.
    secure: options.port === 465,
    ...(options.user ? { auth: { user: options.user, pass: options.pass ?? "" } } : {}),
    // Bounded at every step so a hung server fails a send instead of holding it.
    connectionTimeout: options.connectionTimeoutMs ?? 10_000,
    greetingTimeout: options.greetingTimeoutMs ?? 10_000,
    socketTimeout: options.socketTimeoutMs ?? 30_000,
    maxConnections: options.maxConnections ?? 5,
    // One retry covers a pooled connection the server dropped while idle; the outbox handles the rest.
    maxRequeues: 1,
    // Message bodies are our own strings: nothing may make nodemailer read files or URLs.
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
    debug: false,
  };
  const transport = nodemailer.createTransport(poolOptions);
  // An address object, so nodemailer quotes and encodes the display name itself.
  const from = { name: options.senderName || options.adminEmail, address: options.adminEmail };

  return {
    async send(email) {
      const rendered = await render(email);
      try {
        await transport.sendMail({
          from,
          to: rendered.to,
          subject: rendered.subject,
          text: rendered.text,
          html: rendered.html,
        });
      } catch (error) {
        throw new SmtpDeliveryError(error, secretsOf(email, rendered));
      }
    },
    async verify() {
      try {
        await transport.verify();
      } catch (error) {
        throw new SmtpDeliveryError(error, []);
      }
    },
    async close() {
      transport.close();
    },
  };
}

function secretsOf(email: AuthEmail, rendered: RenderedEmail): string[] {
  const secrets = [rendered.link ?? "", rendered.code ?? ""];
  if ("linkToken" in email) secrets.push(email.linkToken);
  return secrets;
}
