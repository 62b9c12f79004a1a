import type { AuthEmail, AuthEmailKind, LinkFields } from "@latchkey/domain";

/**
 * The emails by the name of their MAILER_SUBJECTS_ / MAILER_TEMPLATES_ setting. The names are the server
 * configuration's keys (INVITE → invite, MAGIC_LINK → magicLink, …), so its records map onto ours unchanged.
 */
export type MailTemplateName =
  | "invite"
  | "confirmation"
  | "recovery"
  | "magicLink"
  | "emailChange"
  | "reauthentication"
  | "passwordChangedNotification"
  | "emailChangedNotification"
  | "phoneChangedNotification";

/** The links by the name of their MAILER_URLPATHS_ setting. */
export type MailUrlPathName = "invite" | "confirmation" | "recovery" | "emailChange";

/** The emails that carry a link, derived from the port so a new link kind needs a URL path below. */
export type LinkEmail = Extract<AuthEmail, LinkFields>;
export type LinkEmailKind = LinkEmail["kind"];

/** The subject and template setting an email kind uses. */
export function templateNameOf(kind: AuthEmailKind): MailTemplateName {
  switch (kind) {
    case "confirmation":
      return "confirmation";
    case "invite":
      return "invite";
    case "magic_link":
      return "magicLink";
    case "recovery":
      return "recovery";
    case "email_change":
      return "emailChange";
    case "reauthentication":
      return "reauthentication";
    case "password_changed":
      return "passwordChangedNotification";
    case "email_changed":
      return "emailChangedNotification";
    case "phone_changed":
      return "phoneChangedNotification";
    default:
      return unreachable(kind);
  }
}

/** The URL path setting a link kind uses; a magic link shares the recovery path, as in GoTrue. */
export function urlPathNameOf(kind: LinkEmailKind): MailUrlPathName {
  switch (kind) {
    case "confirmation":
      return "confirmation";
    case "invite":
      return "invite";
    case "magic_link":
    case "recovery":
      return "recovery";
    case "email_change":
      return "emailChange";
    default:
      return unreachable(kind);
  }
}

/** Makes a switch exhaustive: a new member of the union is a compile error at the call. */
export function unreachable(value: never): never {
  throw new Error(`unhandled email kind: ${String(value)}`);
}
