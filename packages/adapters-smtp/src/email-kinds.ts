import type { AuthEmail, AuthEmailKind, LinkEmail } from "@latchkey/domain";

type EmailOf<K extends AuthEmailKind> = Extract<AuthEmail, { kind: K }>;

/** A template variable: `{{ .Name }}`. */
export type Entry = readonly [name: string, value: string];

/** The parts of a built-in email, rendered the same way to HTML and to text (built-in-body.ts). */
export interface BodyContent {
  readonly heading: string;
  readonly paragraphs: readonly string[];
  readonly action?: { readonly label: string; readonly url: string };
  readonly code?: string;
  readonly closing: string;
}

/** The links whose path a MAILER_URLPATHS_<NAME> setting sets, by that name lower-cased. */
export const URL_PATHS = {
  confirmation: "CONFIRMATION",
  invite: "INVITE",
  recovery: "RECOVERY",
  email_change: "EMAIL_CHANGE",
} as const;
export type UrlPathName = keyof typeof URL_PATHS;

/** Everything about one kind of email, in one place. */
export interface EmailKind<K extends AuthEmailKind> {
  /** `<SETTING>` of its MAILER_SUBJECTS_<SETTING> and MAILER_TEMPLATES_<SETTING> settings. */
  readonly setting: string;
  /** Its subject where MAILER_SUBJECTS_* sets none (the specification's). */
  readonly subject: string;
  /** `<NAME>` of the MAILER_NOTIFICATIONS_<NAME>_ENABLED switch of a notification. */
  readonly notification?: string;
  /** The URL path setting its link uses; a magic link shares the recovery path, as in GoTrue. */
  readonly urlPath?: UrlPathName;
  /** Its template variables, besides SiteURL, SendingTo and, for a link, the link's own. */
  readonly variables: (email: EmailOf<K>) => readonly Entry[];
  /** What its built-in body says; `link` is its link, if it has one. */
  readonly body: (email: EmailOf<K>, link: string, siteUrl: string) => BodyContent;
}

type FactorType = EmailOf<"mfa_factor_enrolled">["factorType"];

const IGNORE = "If you did not ask for this, you can ignore this email.";
const ALARM = "If you did not make this change, reset your password right away and contact the site's support.";

/** How the built-in bodies name a second factor: its type as GoTrue spells it (`FactorType`), then what it is. */
const FACTOR_NAMES: { readonly [T in FactorType]: string } = {
  totp: "totp (codes from an authenticator app)",
  phone: "phone (codes sent by SMS)",
  webauthn: "webauthn (a security key or a device's passkey)",
};

/**
 * Every email the domain sends (its AuthEmail union), keyed by its kind: a new kind is one entry here, and the
 * settings, the subjects, the template variables and the built-in body all follow from it.
 */
export const EMAIL_KINDS: { readonly [K in AuthEmailKind]: EmailKind<K> } = {
  confirmation: {
    setting: "CONFIRMATION",
    subject: "Confirm your email address",
    urlPath: "confirmation",
    variables: (email) => [["Email", email.to]],
    body: (email, link) => ({
      heading: "Confirm your email address",
      paragraphs: [`Follow this link to confirm the email address ${email.to}:`],
      action: { label: "Confirm your email address", url: link },
      code: email.otp,
      closing: "If you did not sign up, you can ignore this email.",
    }),
  },
  invite: {
    setting: "INVITE",
    subject: "You've been invited",
    urlPath: "invite",
    variables: (email) => [["Email", email.to]],
    body: (email, link, siteUrl) => ({
      heading: "You have been invited",
      paragraphs: [`You have been invited to create an account on ${siteUrl}. Follow this link to accept:`],
      action: { label: "Accept the invitation", url: link },
      code: email.otp,
      closing: "If you were not expecting this invitation, you can ignore this email.",
    }),
  },
  magic_link: {
    setting: "MAGIC_LINK",
    subject: "Your sign-in link",
    urlPath: "recovery",
    variables: (email) => [["Email", email.to]],
    body: (email, link) => ({
      heading: "Your sign-in link",
      paragraphs: ["Follow this link to sign in:"],
      action: { label: "Sign in", url: link },
      code: email.otp,
      closing: "If you did not ask to sign in, you can ignore this email.",
    }),
  },
  recovery: {
    setting: "RECOVERY",
    subject: "Reset your password",
    urlPath: "recovery",
    variables: (email) => [["Email", email.to]],
    body: (email, link) => ({
      heading: "Reset your password",
      paragraphs: [`Follow this link to reset the password of the account ${email.to}:`],
      action: { label: "Reset your password", url: link },
      code: email.otp,
      closing: "If you did not ask to reset your password, you can ignore this email: your password stays as it is.",
    }),
  },
  email_change: {
    setting: "EMAIL_CHANGE",
    subject: "Confirm your new email address",
    urlPath: "email_change",
    // `Email` is the account's current address.
    variables: (email) => [
      ["Email", email.email],
      ["NewEmail", email.newEmail],
    ],
    body: (email, link) => ({
      heading: "Confirm your new email address",
      paragraphs: [
        `Follow this link to change the email address of your account from ${email.email} to ${email.newEmail}:`,
      ],
      action: { label: "Confirm the change", url: link },
      code: email.otp,
      closing: IGNORE,
    }),
  },
  reauthentication: {
    setting: "REAUTHENTICATION",
    subject: "{{ .Token }} is your verification code",
    variables: (email) => [
      ["Email", email.to],
      ["Token", email.otp],
    ],
    body: (email) => ({
      heading: "Your verification code",
      paragraphs: ["Enter this code to confirm it is you."],
      code: email.otp,
      closing: IGNORE,
    }),
  },
  password_changed: {
    setting: "PASSWORD_CHANGED_NOTIFICATION",
    subject: "Your password was changed",
    notification: "PASSWORD_CHANGED",
    variables: (email) => [["Email", email.to]],
    body: (email) => ({
      heading: "Your password was changed",
      paragraphs: [`The password of your account ${email.to} was just changed.`],
      closing: ALARM,
    }),
  },
  email_changed: {
    setting: "EMAIL_CHANGED_NOTIFICATION",
    subject: "Your email address was changed",
    notification: "EMAIL_CHANGED",
    // `Email` is the new address.
    variables: (email) => [
      ["Email", email.email],
      ["OldEmail", email.oldEmail],
    ],
    body: (email) => ({
      heading: "Your email address was changed",
      paragraphs: [`The email address of your account was changed from ${email.oldEmail} to ${email.email}.`],
      closing: ALARM,
    }),
  },
  phone_changed: {
    setting: "PHONE_CHANGED_NOTIFICATION",
    subject: "Your phone number was changed",
    notification: "PHONE_CHANGED",
    variables: (email) => [
      ["Email", email.to],
      ["Phone", email.phone],
      ["OldPhone", email.oldPhone],
    ],
    body: (email) => ({
      heading: "Your phone number was changed",
      paragraphs: [phoneChange(email.to, email.oldPhone, email.phone)],
      closing: ALARM,
    }),
  },
  identity_linked: {
    setting: "IDENTITY_LINKED_NOTIFICATION",
    subject: "A new sign-in method was linked to your account",
    notification: "IDENTITY_LINKED",
    variables: (email) => [
      ["Email", email.to],
      ["Provider", email.provider],
    ],
    body: (email) => ({
      heading: "A new sign-in method was linked to your account",
      paragraphs: [`Your account ${email.to} can now be signed in to with ${email.provider}.`],
      closing: ALARM,
    }),
  },
  identity_unlinked: {
    setting: "IDENTITY_UNLINKED_NOTIFICATION",
    subject: "A sign-in method was removed from your account",
    notification: "IDENTITY_UNLINKED",
    variables: (email) => [
      ["Email", email.to],
      ["Provider", email.provider],
    ],
    body: (email) => ({
      heading: "A sign-in method was removed from your account",
      paragraphs: [`Your account ${email.to} can no longer be signed in to with ${email.provider}.`],
      closing: ALARM,
    }),
  },
  mfa_factor_enrolled: {
    setting: "MFA_FACTOR_ENROLLED_NOTIFICATION",
    subject: "A new verification method was added to your account",
    notification: "MFA_FACTOR_ENROLLED",
    variables: (email) => [
      ["Email", email.to],
      ["FactorType", email.factorType],
    ],
    body: (email) => ({
      heading: "A new verification method was added to your account",
      paragraphs: [
        `The verification method ${FACTOR_NAMES[email.factorType]} was added to your account ${email.to}, as a second step of signing in.`,
      ],
      closing: ALARM,
    }),
  },
  mfa_factor_unenrolled: {
    setting: "MFA_FACTOR_UNENROLLED_NOTIFICATION",
    subject: "A verification method was removed from your account",
    notification: "MFA_FACTOR_UNENROLLED",
    variables: (email) => [
      ["Email", email.to],
      ["FactorType", email.factorType],
    ],
    body: (email) => ({
      heading: "A verification method was removed from your account",
      paragraphs: [
        `The verification method ${FACTOR_NAMES[email.factorType]} was removed from your account ${email.to}: it can no longer be used to sign in.`,
      ],
      closing: ALARM,
    }),
  },
};

/** The entry of an email's kind, typed for that email. */
export function kindOf<K extends AuthEmailKind>(email: EmailOf<K>): EmailKind<K> {
  return EMAIL_KINDS[email.kind as K];
}

/** Whether the email carries a link (its kind has a URL path). */
export function isLinkEmail(email: AuthEmail): email is LinkEmail {
  return EMAIL_KINDS[email.kind].urlPath !== undefined;
}

function phoneChange(account: string, oldPhone: string, phone: string): string {
  if (!oldPhone) return `The phone number ${phone} was added to your account ${account}.`;
  if (!phone) return `The phone number ${oldPhone} was removed from your account ${account}.`;
  return `The phone number of your account ${account} was changed from ${oldPhone} to ${phone}.`;
}
