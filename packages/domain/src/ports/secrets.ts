/** Keyed functions over secrets, so that a copy of the database alone hands out nothing usable. */
export interface Secrets {
  /** The deterministic digest under which a token or code is stored and looked up. */
  digest(value: string): string;
  /**
   * The refresh token that follows `previous`. Deterministic, so that a retried or concurrent refresh of the same
   * token can be answered with the very same child even though only digests are stored.
   */
  nextRefreshToken(previous: string): string;
  /** Constant-time comparison. */
  equal(a: string, b: string): boolean;
  /** Authenticated encryption, for what must be kept readable for a while (queued messages carrying tokens). */
  seal(plaintext: string): string;
  /** The plaintext of what `seal` produced; throws when it was tampered with or sealed under another key. */
  open(sealed: string): string;
  /** Unkeyed SHA-256, base64url without padding: PKCE's S256 transform of a code verifier. */
  sha256(value: string): string;
}
