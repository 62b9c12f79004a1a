import type { AuthEmail } from "@latchkey/domain";
import { confirmationUrl } from "./confirmation-url.ts";
import { type Entry, isLinkEmail, kindOf } from "./email-kinds.ts";
import type { TemplateVariables } from "./expand-template.ts";
import type { RenderOptions } from "./options.ts";

const NO_DATA: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The variables an email's subject and template can use: the specification's table (SiteURL, Email, NewEmail,
 * ConfirmationURL, Token, OldEmail, Phone, OldPhone, Provider, FactorType) plus Supabase's TokenHash, RedirectTo,
 * SendingTo and Data.
 * Each kind adds its own (email-kinds.ts); a mail with a link adds the link's.
 */
export function templateVariables(email: AuthEmail, options: RenderOptions): TemplateVariables {
  const entries: Entry[] = [["SiteURL", options.siteUrl], ["SendingTo", email.to], ...kindOf(email).variables(email)];
  if (!isLinkEmail(email)) return { values: new Map(entries), data: NO_DATA };
  entries.push(
    ["ConfirmationURL", confirmationUrl(email, options)],
    ["Token", email.otp],
    ["TokenHash", email.linkToken],
    ["RedirectTo", email.redirectTo],
  );
  // A Map, not an object: `{{ .constructor }}` must find nothing.
  return { values: new Map(entries), data: email.data };
}
