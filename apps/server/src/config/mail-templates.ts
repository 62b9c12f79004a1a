/** Every email the service sends, by the suffix of its MAILER_SUBJECTS_ / MAILER_TEMPLATES_ variables. */
export const MAIL_TEMPLATES = {
  invite: { suffix: "INVITE", subject: "You've been invited" },
  confirmation: { suffix: "CONFIRMATION", subject: "Confirm your email address" },
  recovery: { suffix: "RECOVERY", subject: "Reset your password" },
  magicLink: { suffix: "MAGIC_LINK", subject: "Your sign-in link" },
  emailChange: { suffix: "EMAIL_CHANGE", subject: "Confirm your new email address" },
  reauthentication: { suffix: "REAUTHENTICATION", subject: "{{ .Token }} is your verification code" },
  passwordChangedNotification: { suffix: "PASSWORD_CHANGED_NOTIFICATION", subject: "Your password was changed" },
  emailChangedNotification: { suffix: "EMAIL_CHANGED_NOTIFICATION", subject: "Your email address was changed" },
  phoneChangedNotification: { suffix: "PHONE_CHANGED_NOTIFICATION", subject: "Your phone number was changed" },
} as const;

export type MailTemplate = keyof typeof MAIL_TEMPLATES;
export type MailSuffix = (typeof MAIL_TEMPLATES)[MailTemplate]["suffix"];

/** Notifications the operator switches on one by one: MAILER_NOTIFICATIONS_<SUFFIX>_ENABLED. */
export const MAIL_NOTIFICATIONS = {
  passwordChanged: "PASSWORD_CHANGED",
  emailChanged: "EMAIL_CHANGED",
  phoneChanged: "PHONE_CHANGED",
} as const;

export type MailNotification = keyof typeof MAIL_NOTIFICATIONS;
export type MailNotificationSuffix = (typeof MAIL_NOTIFICATIONS)[MailNotification];

/** The links whose path MAILER_URLPATHS_<SUFFIX> sets; a magic link uses the recovery path, as in GoTrue. */
export const MAIL_URL_PATHS = {
  invite: "INVITE",
  confirmation: "CONFIRMATION",
  recovery: "RECOVERY",
  emailChange: "EMAIL_CHANGE",
} as const;

export type MailUrlPath = keyof typeof MAIL_URL_PATHS;
export type MailUrlPathSuffix = (typeof MAIL_URL_PATHS)[MailUrlPath];
