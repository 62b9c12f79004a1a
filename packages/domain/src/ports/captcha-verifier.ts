/** A captcha provider's verdict on one token (hCaptcha's and Turnstile's siteverify answer). */
export interface CaptchaVerdict {
  readonly success: boolean;
  /** The provider's `error-codes`, which GoTrue shows the client. */
  readonly errorCodes: readonly string[];
}

/**
 * Checks a captcha token with its provider. Throws when the provider cannot be asked (unreachable, too slow, an
 * answer that is not its own): the request is then refused as a failure of ours, not of the client.
 */
export interface CaptchaVerifier {
  verify(token: string, remoteIp: string | null): Promise<CaptchaVerdict>;
}
