import type { Principal, SessionGrant } from "../deps.ts";
import { type AuthError, isAuthError } from "../errors.ts";
import type { TestAuth } from "./create-test-auth.ts";
import { context } from "./fails-with.ts";
import type { FakeOAuthProvider } from "./fake-oauth-provider.ts";

/** RFC 7636's example: a code verifier and its S256 challenge. */
export const PKCE_EXAMPLE = {
  verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
  challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
} as const;

export type LinkOutcome =
  | { readonly kind: "session"; readonly grant: SessionGrant }
  | { readonly kind: "failed"; readonly error: AuthError };

/**
 * An identity linked as an app links it (auth-js's linkIdentity in its PKCE flow): GET /user/identities/authorize
 * with a code challenge, the provider's callback, then the code exchanged with the verifier. The exchange's grant,
 * or the error of the callback or of the exchange.
 */
export async function linkThroughProvider(
  testAuth: TestAuth,
  provider: FakeOAuthProvider,
  principal: Principal,
): Promise<LinkOutcome> {
  await testAuth.auth.oauth.start({
    provider: provider.name,
    params: [],
    linkingTarget: principal,
    codeChallenge: PKCE_EXAMPLE.challenge,
    codeChallengeMethod: "s256",
  });
  const called = await testAuth.auth.oauth.complete({ params: { state: provider.lastState, code: "abc" }, context });
  if (called.kind === "failed") return called;
  if (called.kind !== "auth_code") throw new Error(`a link's callback ended in ${called.kind}, not a code`);
  try {
    const grant = await testAuth.auth.exchangeAuthCode({
      authCode: called.authCode,
      codeVerifier: PKCE_EXAMPLE.verifier,
      context,
    });
    return { kind: "session", grant };
  } catch (error) {
    if (isAuthError(error)) return { kind: "failed", error };
    throw error;
  }
}
