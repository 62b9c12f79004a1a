/** A cryptographically secure source of randomness. */
export interface Random {
  uuid(): string;
  /** A URL-safe token carrying `bytes` random bytes. */
  token(bytes: number): string;
  /** A uniformly random string of `length` decimal digits, zero-padded. */
  digits(length: number): string;
}
