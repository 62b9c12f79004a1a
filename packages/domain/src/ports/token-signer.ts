/**
 * Signs and verifies JWTs. Which algorithm and key (HS256 with JWT_SECRET today; RS256, ES256, EdDSA with key ids
 * later) is the adapter's business: use cases only hand over claims and get claims back.
 */
export interface TokenSigner {
  sign(claims: Readonly<Record<string, unknown>>): Promise<string>;
  /**
   * Whether tokens are signed with a key others can verify (an asymmetric key of JWT_KEYS, published in the JWKS):
   * what an OpenID Connect id_token needs, since its client must verify it without knowing JWT_SECRET.
   */
  readonly publiclyVerifiable: boolean;
  /**
   * Returns the claims of a token whose signature and algorithm check out, and whose `exp`, when it has one, has
   * not passed. Throws AuthError `bad_jwt` for anything else.
   */
  verify(token: string): Promise<Readonly<Record<string, unknown>>>;
}
