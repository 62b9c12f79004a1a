/** One pending token per user and kind; issuing a new one replaces the old. */
export type OneTimeTokenKind =
  | "confirmation"
  | "recovery"
  | "email_change_current"
  | "email_change_new"
  | "phone_change"
  | "reauthentication";

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
  readonly failedAttempts: number;
  readonly createdAt: Date;
}
