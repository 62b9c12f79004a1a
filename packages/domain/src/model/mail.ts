import type { FactorType } from "./factor.ts";
import type { Metadata } from "./metadata.ts";

/** GoTrue's verification types: the `type` of a link, and of POST /verify. */
export type LinkType = "signup" | "invite" | "magiclink" | "recovery" | "email_change";

/** What every email with a link carries. The adapter builds the link from these, API_EXTERNAL_URL and the paths. */
export interface LinkFields {
  readonly to: string;
  readonly linkType: LinkType;
  /** The token the link carries (GoTrue's `token_hash`, `pkce_`-prefixed in PKCE flows). */
  readonly linkToken: string;
  /** The numeric code, for templates that show it. */
  readonly otp: string;
  /** Where the link sends the browser once verified. */
  readonly redirectTo: string;
}

/**
 * The emails the domain asks for, as one union: a new kind is a new member every adapter must handle.
 * Addresses are the user's at the time the mail was asked for.
 */
export type AuthEmail =
  | (LinkFields & { readonly kind: "confirmation"; readonly data: Metadata })
  | (LinkFields & { readonly kind: "invite"; readonly data: Metadata })
  | (LinkFields & { readonly kind: "magic_link"; readonly data: Metadata })
  | (LinkFields & { readonly kind: "recovery"; readonly data: Metadata })
  | (LinkFields & {
      readonly kind: "email_change";
      /** The current address. */
      readonly email: string;
      readonly newEmail: string;
      readonly data: Metadata;
    })
  | { readonly kind: "reauthentication"; readonly to: string; readonly otp: string }
  | { readonly kind: "password_changed"; readonly to: string }
  | { readonly kind: "email_changed"; readonly to: string; readonly email: string; readonly oldEmail: string }
  /** `oldPhone` is empty when the number was added rather than changed. */
  | { readonly kind: "phone_changed"; readonly to: string; readonly phone: string; readonly oldPhone: string }
  /** `provider` is the identity's: `github`, `google`, ... */
  | { readonly kind: "identity_linked"; readonly to: string; readonly provider: string }
  | { readonly kind: "identity_unlinked"; readonly to: string; readonly provider: string }
  /** A second factor was verified for the first time, or removed: `factorType` is GoTrue's `FactorType`. */
  | { readonly kind: "mfa_factor_enrolled"; readonly to: string; readonly factorType: FactorType }
  | { readonly kind: "mfa_factor_unenrolled"; readonly to: string; readonly factorType: FactorType };

export type AuthEmailKind = AuthEmail["kind"];

/** GoTrue's `email_action_type` of each mail: the send_email hook's, and its email send counters' `type`. */
export const EMAIL_ACTION_TYPES: { readonly [K in AuthEmailKind]: string } = {
  confirmation: "signup",
  invite: "invite",
  magic_link: "magiclink",
  recovery: "recovery",
  email_change: "email_change",
  reauthentication: "reauthentication",
  password_changed: "password_changed_notification",
  email_changed: "email_changed_notification",
  phone_changed: "phone_changed_notification",
  identity_linked: "identity_linked_notification",
  identity_unlinked: "identity_unlinked_notification",
  mfa_factor_enrolled: "mfa_factor_enrolled_notification",
  mfa_factor_unenrolled: "mfa_factor_unenrolled_notification",
};

/** The notifications of a change already made, which the operator switches on one by one. */
export type NotificationKind =
  | "password_changed"
  | "email_changed"
  | "phone_changed"
  | "identity_linked"
  | "identity_unlinked"
  | "mfa_factor_enrolled"
  | "mfa_factor_unenrolled";

/** An email that carries a link. */
export type LinkEmail = Extract<AuthEmail, LinkFields>;
