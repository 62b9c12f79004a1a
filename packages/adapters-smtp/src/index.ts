export { createSmtpMailer, type SmtpMailer } from "./smtp-mailer.ts";
export { createLogMailer } from "./log-mailer.ts";
export { renderEmail, type RenderedEmail } from "./render-email.ts";
export { confirmationUrl } from "./confirmation-url.ts";
export { createEmailRenderer, type EmailRenderer } from "./email-renderer.ts";
export { SmtpDeliveryError } from "./smtp-delivery-error.ts";
export { EMAIL_KINDS, type EmailKind, URL_PATHS, type UrlPathName } from "./email-kinds.ts";
export type {
  LogEntry,
  LogMailerOptions,
  MailerOptions,
  RenderOptions,
  SmtpMailerOptions,
  TemplateOptions,
} from "./options.ts";
