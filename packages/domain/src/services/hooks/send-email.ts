import type { Deps } from "../../deps.ts";
import { type AuthEmail, EMAIL_ACTION_TYPES } from "../../model/mail.ts";
import type { EmailChangeMail } from "../../model/outbox.ts";
import type { User } from "../../model/user.ts";
import { presentUser } from "../../model/user-json.ts";
import { hookMetadata } from "./call-hook.ts";

/** GoTrue's `email_data`: every field, empty where the mail has nothing for it. */
type EmailData = Record<
  | "token"
  | "token_hash"
  | "redirect_to"
  | "email_action_type"
  | "site_url"
  | "token_new"
  | "token_hash_new"
  | "old_email"
  | "old_phone"
  | "provider"
  | "factor_type",
  string
>;

/** What a mail of each kind fills in of `email_data`. */
function fieldsOf(email: AuthEmail, alongside: EmailChangeMail | undefined): Partial<EmailData> {
  switch (email.kind) {
    case "confirmation":
    case "invite":
    case "magic_link":
    case "recovery":
      return { token: email.otp, token_hash: email.linkToken, redirect_to: email.redirectTo };
    case "email_change":
      return emailChangeFields(email, alongside);
    case "reauthentication":
      return { token: email.otp };
    case "password_changed":
      return {};
    case "email_changed":
      return { old_email: email.oldEmail };
    case "phone_changed":
      return { old_phone: email.oldPhone };
    case "identity_linked":
    case "identity_unlinked":
      return { provider: email.provider };
    case "mfa_factor_enrolled":
    case "mfa_factor_unenrolled":
      return { factor_type: email.factorType };
  }
}

/**
 * compat: an email change is one call, as GoTrue makes it, with GoTrue's pairing of its fields: with a mail to the
 * current address too (secure email change), `token` and `token_hash_new` are the current address's, `token_new`
 * and `token_hash` the new one's; without, `token` and `token_hash` are the new address's (docs/compatibility.md).
 */
function emailChangeFields(toNew: EmailChangeMail, toCurrent: EmailChangeMail | undefined): Partial<EmailData> {
  const link = { redirect_to: toNew.redirectTo, token_hash: toNew.linkToken };
  if (toCurrent === undefined) return { ...link, token: toNew.otp };
  return { ...link, token: toCurrent.otp, token_new: toNew.otp, token_hash_new: toCurrent.linkToken };
}

/**
 * The send_email hook's payload for a mail (and the one riding with it): `user` as the API shows it, with the
 * user_metadata the mail's templates see (a pending signup's chosen data, which rides on its confirmation), and
 * `email_data` as GoTrue fills it; `site_url` is API_EXTERNAL_URL, as GoTrue's is.
 */
export function sendEmailPayload(
  deps: Deps,
  request: { email: AuthEmail; alongside: EmailChangeMail | undefined; user: User; id: string },
) {
  const { email, alongside, user, id } = request;
  const empty: EmailData = {
    token: "",
    token_hash: "",
    // GoTrue's referrer: SITE_URL for a mail that leads nowhere of its own.
    redirect_to: deps.policy.redirect.siteUrl,
    email_action_type: EMAIL_ACTION_TYPES[email.kind],
    site_url: deps.policy.apiExternalUrl,
    token_new: "",
    token_hash_new: "",
    old_email: "",
    old_phone: "",
    provider: "",
    factor_type: "",
  };
  const shown = "data" in email ? { ...user, userMetadata: email.data } : user;
  return {
    // The message's id, on every attempt at it: a receiver may drop a duplicate by either.
    metadata: { ...hookMetadata(deps, "send_email", null), uuid: id },
    user: presentUser(shown),
    email_data: { ...empty, ...fieldsOf(email, alongside) },
  };
}
