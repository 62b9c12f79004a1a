/** Keyed one-way functions over tokens, so that a copy of the database alone hands out nothing usable. */
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
}
