export interface PasswordVerification {
  readonly ok: boolean;
  /** The stored hash uses another algorithm or weaker parameters: store a fresh hash after this sign-in. */
  readonly needsRehash: boolean;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Verifies against a stored hash (argon2id, or imported argon2/bcrypt); a malformed hash is simply not ok. */
  verify(hash: string, password: string): Promise<PasswordVerification>;
  /** Costs what a failed verification costs, for users that do not exist, so timing tells nothing. */
  verifyNothing(password: string): Promise<void>;
}
