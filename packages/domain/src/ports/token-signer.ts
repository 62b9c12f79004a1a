/**
 * Signs and verifies JWTs. Which algorithm and key (HS256 with JWT_SECRET today; RS256, ES256, EdDSA with key ids
 * later) is the adapter's business: use cases only hand over claims and get claims back.
 */
export interface TokenSigner {
  sign(claims: Readonly<Record<string, unknown>>): Promise<string>;
  /**
   * Returns the claims of a token whose signature and algorithm check out, and whose `exp`, when it has one, has
   * not passed. Throws AuthError `bad_jwt` for anything else.
   */
  verify(token: string): Promise<Readonly<Record<string, unknown>>>;
}
