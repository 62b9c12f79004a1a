import type { AuthEmail } from "@latchkey/domain";
import { confirmationUrl } from "./confirmation-url.ts";
import { unreachable, type LinkEmail } from "./email-kinds.ts";
import type { TemplateVariables } from "./expand-template.ts";
import type { RenderOptions } from "./options.ts";

type Entry = readonly [name: string, value: string];

const NO_DATA: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The variables an email's subject and template can use: the specification's table (SiteURL, Email, NewEmail,
 * ConfirmationURL, Token, OldEmail, Phone, OldPhone) plus Supabase's TokenHash, RedirectTo, SendingTo and Data.
 * `Email` is the account's address: for email_change the current one, for email_changed the new one.
 */
export function templateVariables(email: AuthEmail, options: RenderOptions): TemplateVariables {
  const common: Entry[] = [
    ["SiteURL", options.siteUrl],
    ["SendingTo", email.to],
  ];
  switch (email.kind) {
    case "confirmation":
    case "invite":
    case "magic_link":
    case "recovery":
      return variables([...common, ["Email", email.to], ...linkEntries(email, options)], email.data);
    case "email_change":
      return variables(
        [...common, ["Email", email.email], ["NewEmail", email.newEmail], ...linkEntries(email, options)],
        email.data,
      );
    case "reauthentication":
      return variables([...common, ["Email", email.to], ["Token", email.otp]]);
    case "password_changed":
      return variables([...common, ["Email", email.to]]);
    case "email_changed":
      return variables([...common, ["Email", email.email], ["OldEmail", email.oldEmail]]);
    case "phone_changed":
      return variables([...common, ["Email", email.to], ["Phone", email.phone], ["OldPhone", email.oldPhone]]);
    default:
      return unreachable(email);
  }
}

function linkEntries(email: LinkEmail, options: RenderOptions): Entry[] {
  return [
    ["ConfirmationURL", confirmationUrl(email, options)],
    ["Token", email.otp],
    ["TokenHash", email.linkToken],
    ["RedirectTo", email.redirectTo],
  ];
}

function variables(entries: readonly Entry[], data: Readonly<Record<string, unknown>> = NO_DATA): TemplateVariables {
  // A Map, not an object: `{{ .constructor }}` must find nothing.
  return { values: new Map(entries), data };
}
