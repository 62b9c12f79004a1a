import type { LinkType } from "./mail.ts";
import type { Metadata } from "./metadata.ts";

/** One pending token per user and kind; issuing a new one replaces the old. */
export type OneTimeTokenKind =
  | "confirmation"
  | "invite"
  | "magic_link"
  | "recovery"
  | "email_change_current"
  | "email_change_new"
  | "phone_change"
  | "reauthentication";

export type CodeChallengeMethod = "s256" | "plain";

export interface OneTimeToken {
  readonly id: string;
  readonly userId: string;
  readonly kind: OneTimeTokenKind;
  /** Where it was sent: a lower-cased email address or an E.164 phone number. */
  readonly relatesTo: string;
  /** Digest of the token carried by a link; null for codes sent by SMS. */
  readonly linkTokenHash: string | null;
  /** Digest of `relatesTo` and the numeric code together. */
  readonly otpHash: string;
  /** Attempts spent on its code (see MAX_FAILED_ATTEMPTS): every one a wrong code, as a right one uses the token up. */
  readonly failedAttempts: number;
  /** Set when the request that asked for it started a PKCE flow: its link then leads to a code, not a session. */
  readonly codeChallenge: string | null;
  readonly codeChallengeMethod: CodeChallengeMethod | null;
  /**
   * The password chosen by the signup that asked for this token, applied when it is verified: whoever confirms the
   * address gets the password they chose, never one someone else set on an account they could not confirm.
   */
  readonly passwordHash: string | null;
  /**
   * The user_metadata chosen by the request that asked for this token, when an account nobody has proven yet was
   * asked for (signup, a sign-in mail creating the account): applied once the token is verified, as the password is.
   * Whoever proves the address some other way never carries what an unproven party chose.
   */
  readonly userMetadata: Metadata | null;
  /**
   * The provider identity whose sign-in asked for this confirmation (an address the provider did not verify): it
   * stays the account's once the token is verified. security: when an account's address is first proven, every
   * identity attached before then goes but this one, so a sign-in that merely claimed an address keeps nothing of
   * an account its owner proves some other way (apply-verification.ts).
   */
  readonly identityId: string | null;
  readonly createdAt: Date;
}

/**
 * What the request a confirmation answers chose for an account nobody has proven yet: applied once that
 * confirmation is verified (see apply-verification.ts), and lost if the address is proven any other way.
 */
export type PendingChoices = Pick<OneTimeToken, "passwordHash" | "userMetadata" | "identityId">;

/** A confirmation that carries nothing: whoever proves the address sets their password and data themselves. */
export const NO_CHOICES: PendingChoices = { passwordHash: null, userMetadata: null, identityId: null };

/**
 * How many times a token's code may be tried. After that many wrong codes the code works no more, so six digits
 * cannot be walked through even by guessers on many addresses; the token's link still works, since it cannot be
 * guessed, so nobody else's wrong codes can take a mailed link from its owner.
 */
export const MAX_FAILED_ATTEMPTS = 5;

/** Links of PKCE flows carry this prefix, as GoTrue's do, so both the server and the reader can tell them apart. */
export const PKCE_PREFIX = "pkce_";

/** GoTrue's verification types: those of emailed links and codes, and `sms` and `phone_change` for texted codes. */
export type VerifyType = LinkType | "email" | PhoneVerifyType;
export type PhoneVerifyType = "sms" | "phone_change";

/** The types POST /verify accepts for emailed tokens; links (GET /verify) use the same. */
export const EMAIL_VERIFY_TYPES: readonly (LinkType | "email")[] = [
  "signup",
  "invite",
  "magiclink",
  "recovery",
  "email_change",
  "email",
];
export const PHONE_VERIFY_TYPES: readonly PhoneVerifyType[] = ["sms", "phone_change"];

/** What each verification type accepts: a token is bound to the purpose it was issued for. */
export function kindsVerifiedBy(type: VerifyType): readonly OneTimeTokenKind[] {
  switch (type) {
    case "signup":
      // GoTrue checks signup and invite codes against the same token.
      return ["confirmation", "invite"];
    case "invite":
      return ["invite"];
    case "magiclink":
      return ["magic_link"];
    case "recovery":
      return ["recovery"];
    case "email_change":
      return ["email_change_new", "email_change_current"];
    case "email":
      // auth-js verifies the code of any sign-in mail as `email`: a magic link's, a signup's, an invite's or a
      // recovery's (GoTrue matches confirmation, then recovery).
      return ["magic_link", "confirmation", "invite", "recovery"];
    case "sms":
      // A phone signup's code and a sign-in code by SMS are both the number's confirmation, as in GoTrue.
      return ["confirmation"];
    case "phone_change":
      return ["phone_change"];
  }
}

/** Whether the token was texted (to an E.164 number) rather than emailed. */
export function isSmsToken(token: OneTimeToken): boolean {
  return token.relatesTo.startsWith("+");
}

/** Whether the token has outlived MAILER_OTP_EXP or SMS_OTP_EXP, by how it was sent. */
export function hasExpired(
  token: OneTimeToken,
  now: Date,
  otp: { emailOtpExpSeconds: number; smsOtpExpSeconds: number },
): boolean {
  const lifetimeSeconds = isSmsToken(token) ? otp.smsOtpExpSeconds : otp.emailOtpExpSeconds;
  return now.getTime() >= token.createdAt.getTime() + lifetimeSeconds * 1000;
}
