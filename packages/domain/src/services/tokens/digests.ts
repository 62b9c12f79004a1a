import type { Secrets } from "../../ports/secrets.ts";

// Each kind of secret gets its own prefix, so a digest of one kind can never stand for another.

export const refreshTokenDigest = (secrets: Secrets, token: string): string => secrets.digest(`refresh:${token}`);

export const linkTokenDigest = (secrets: Secrets, token: string): string => secrets.digest(`link:${token}`);

/** Binds the code to the address it was sent to, as GoTrue does. */
export const otpDigest = (secrets: Secrets, relatesTo: string, otp: string): string =>
  secrets.digest(`otp:${relatesTo}:${otp}`);

/** The code a PKCE flow hands the browser, exchanged at POST /token?grant_type=pkce. */
export const authCodeDigest = (secrets: Secrets, code: string): string => secrets.digest(`auth-code:${code}`);

/** An id_token signed in with (grant_type=id_token), remembered so that it signs in once. */
export const idTokenDigest = (secrets: Secrets, idToken: string): string => secrets.digest(`id-token:${idToken}`);

/** The secret the browser of an OAuth sign-in keeps (a cookie) from /authorize to /callback. */
export const oauthBindingDigest = (secrets: Secrets, secret: string): string =>
  secrets.digest(`oauth-binding:${secret}`);

/** A phone factor's texted code, bound to its challenge. */
export const mfaCodeDigest = (secrets: Secrets, challengeId: string, code: string): string =>
  secrets.digest(`mfa:${challengeId}:${code}`);

/** An authorization code the OAuth server handed a third-party client, exchanged at POST /oauth/token. */
export const oauthCodeDigest = (secrets: Secrets, code: string): string => secrets.digest(`oauth-code:${code}`);

/** A SAML assertion signed in with, by its IdP and its ID, remembered until it expires so that it signs in once. */
export const samlAssertionDigest = (
  secrets: Secrets,
  provider: { readonly saml: { readonly entityId: string } },
  assertion: { readonly id: string },
): string => secrets.digest(`saml-assertion:${JSON.stringify([provider.saml.entityId, assertion.id])}`);

/**
 * A Web3 sign-in message (its text, whatever signature came with it: an ECDSA signature has more than one valid
 * form), remembered until its latest acceptable moment so that it signs in once.
 */
export const web3MessageDigest = (secrets: Secrets, chain: string, message: string): string =>
  secrets.digest(`web3-message:${JSON.stringify([chain, message])}`);
