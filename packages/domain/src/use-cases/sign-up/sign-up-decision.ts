import type { Contact } from "../../model/contact.ts";
import { isEmailConfirmed, isPhoneConfirmed, type User } from "../../model/user.ts";

export type SignUpDecision =
  /** A new account, confirmed at once (MAILER_AUTOCONFIRM, SMS_AUTOCONFIRM): it signs in. */
  | { readonly kind: "create_confirmed" }
  /** A new account awaiting the confirmation sent to its address. */
  | { readonly kind: "create_pending" }
  /** Where this kind of address signs people straight in, "already registered" is no news to a caller. */
  | { readonly kind: "already_registered" }
  /** A confirmed account: answered as a real signup would be, in shape and in time, revealing nothing of it. */
  | { readonly kind: "disguise_confirmed"; readonly user: User }
  /** An unconfirmed account where addresses confirm themselves: confirmed and signed in, for its password's owner. */
  | { readonly kind: "confirm_owner"; readonly user: User }
  /** An invited account: a stranger's signup mails the invitee nothing, and the answer shows nothing of it. */
  | { readonly kind: "disguise_invited"; readonly user: User }
  /** An account awaiting confirmation: the confirmation is sent again. */
  | { readonly kind: "resend_confirmation"; readonly user: User };

/** What a signup with an address does, given who holds the address already. */
export function decideSignUp(request: {
  /** The account holding the address, if any. */
  readonly existing: User | null;
  readonly provider: Contact["provider"];
  /** Whether this kind of address is confirmed without a mail or SMS (MAILER_AUTOCONFIRM, SMS_AUTOCONFIRM). */
  readonly autoconfirm: boolean;
}): SignUpDecision {
  const { existing, autoconfirm } = request;
  if (existing === null) return { kind: autoconfirm ? "create_confirmed" : "create_pending" };
  const confirmed = request.provider === "email" ? isEmailConfirmed(existing) : isPhoneConfirmed(existing);
  if (confirmed) return autoconfirm ? { kind: "already_registered" } : { kind: "disguise_confirmed", user: existing };
  if (autoconfirm) return { kind: "confirm_owner", user: existing };
  if (existing.invitedAt !== null) return { kind: "disguise_invited", user: existing };
  return { kind: "resend_confirmation", user: existing };
}
