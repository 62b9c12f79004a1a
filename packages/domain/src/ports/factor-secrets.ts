/**
 * Seals TOTP secrets for storage with a key of their own (SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY, else one derived
 * from DB_SECRET; never JWT_SECRET), bound to the factor's id, so a sealed secret copied to another row opens to
 * nothing.
 */
export interface FactorSecrets {
  seal(factorId: string, secret: string): string;
  /** Throws when the value was sealed under a key this instance does not have, or for another factor. */
  open(factorId: string, sealed: string): string;
}
