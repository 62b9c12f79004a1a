import type { MailTemplateName } from "./email-kinds.ts";

/** The specification's default subjects (MAILER_SUBJECTS_*), used where the configuration sets none. */
export const DEFAULT_SUBJECTS: Readonly<Record<MailTemplateName, string>> = Object.freeze({
  invite: "You've been invited",
  confirmation: "Confirm your email address",
  recovery: "Reset your password",
  magicLink: "Your sign-in link",
  emailChange: "Confirm your new email address",
  reauthentication: "{{ .Token }} is your verification code",
  passwordChangedNotification: "Your password was changed",
  emailChangedNotification: "Your email address was changed",
  phoneChangedNotification: "Your phone number was changed",
});
