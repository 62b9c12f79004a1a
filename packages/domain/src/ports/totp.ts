/** What an authenticator app is given to enroll a TOTP factor. */
export interface TotpEnrollment {
  /** `otpauth://totp/<issuer>:<account>?secret=...&issuer=...&algorithm=SHA1&digits=6&period=30` */
  readonly uri: string;
  /** The URI as a QR code: raw SVG markup with no `#` in it (auth-js puts it in a data: URL unencoded). */
  readonly qrCode: string;
}

/**
 * Time-based one-time passwords as authenticator apps compute them (RFC 6238: SHA-1, 6 digits, 30 s steps), so
 * that the domain needs no HMAC or QR library of its own.
 */
export interface TotpAuthenticator {
  /** A new shared secret: 20 random bytes, base32 without padding (32 characters). */
  newSecret(): string;
  enrollment(input: { secret: string; issuer: string; accountName: string }): TotpEnrollment;
  /**
   * The time step (floor(unix seconds / 30)) whose code `code` is, among the step of `at` and one on either side;
   * null when it is none of them. Compares in constant time.
   */
  matchingStep(secret: string, code: string, at: Date): number | null;
}
