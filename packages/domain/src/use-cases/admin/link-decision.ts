import { isEmailConfirmed, type User } from "../../model/user.ts";

export const GENERATE_LINK_TYPES = [
  "signup",
  "invite",
  "magiclink",
  "recovery",
  "email_change_current",
  "email_change_new",
] as const;
export type GenerateLinkType = (typeof GENERATE_LINK_TYPES)[number];

export type LinkDecision =
  | {
      readonly kind: "refuse";
      readonly reason: "user_not_found" | "email_exists" | "password_required" | "secure_email_change_off";
    }
  | {
      readonly kind: "issue";
      /** The type actually used: a magic link to an unknown address signs up. */
      readonly type: GenerateLinkType;
      /** A signup link's password, which the account gets once the link is followed. */
      readonly hashPassword: boolean;
      /** An email change link: the new address must be free. */
      readonly emailChange: boolean;
    };

/**
 * Which link POST /admin/generate_link issues for the address's account, if any, or why none: a recovery or email
 * change needs an account, a signup or invitation one not confirmed yet, a new account's signup a password, and a
 * link for the current address of an email change secure email change (MAILER_SECURE_EMAIL_CHANGE_ENABLED).
 */
export function decideLink(request: {
  readonly requested: GenerateLinkType;
  /** The account holding the address, if any. */
  readonly existing: User | null;
  /** The password given, if any (only a signup link may have one). */
  readonly password: string | undefined;
  readonly secureEmailChange: boolean;
}): LinkDecision {
  const { requested, existing } = request;
  const type: GenerateLinkType = requested === "magiclink" && !existing ? "signup" : requested;
  const emailChange = type === "email_change_current" || type === "email_change_new";
  if (!existing && (type === "recovery" || emailChange)) return { kind: "refuse", reason: "user_not_found" };
  if (existing && isEmailConfirmed(existing) && (type === "signup" || type === "invite")) {
    return { kind: "refuse", reason: "email_exists" };
  }
  const signup = requested === "signup";
  if (signup && !request.password && !existing) return { kind: "refuse", reason: "password_required" };
  if (type === "email_change_current" && !request.secureEmailChange) {
    return { kind: "refuse", reason: "secure_email_change_off" };
  }
  return { kind: "issue", type, hashPassword: signup && !!request.password, emailChange };
}
