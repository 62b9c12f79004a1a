export { confirmationUrl } from "./confirmation-url.ts";
export { EMAIL_KINDS, type EmailKind, URL_PATHS, type UrlPathName } from "./email-kinds.ts";
export { createEmailRenderer, type EmailRenderer } from "./email-renderer.ts";
export { createLogMailer } from "./log-mailer.ts";
export type {
  LogEntry,
  LogMailerOptions,
  MailerOptions,
  RenderOptions,
  SmtpMailerOptions,
  TemplateOptions,
} from "./options.ts";
export { type RenderedEmail, renderEmail } from "./render-email.ts";
export { SmtpDeliveryError } from "./smtp-delivery-error.ts";
export {
  SMTP_ATTEMPT_TIMEOUT_MS,
  SMTP_COMMAND_TIMEOUT_MS,
  SMTP_CONNECTION_TIMEOUT_MS,
  SMTP_GREETING_TIMEOUT_MS,
} from "./smtp-exchange.ts";
export { createSmtpMailer, type SmtpMailer } from "./smtp-mailer.ts";
