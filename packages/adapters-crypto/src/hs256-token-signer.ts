import { AuthError, type TokenSigner } from "@latchkey/domain";
import { createSigner, createVerifier, TokenError } from "fast-jwt";

/**
 * HS256 with JWT_SECRET, as GoTrue signs by default. Only HS256 is accepted on verification, so a token cannot
 * pick its own algorithm (no `none`, no key confusion). Asymmetric keys will be a second implementation of the
 * same port, keyed by `kid`.
 *
 * fast-jwt rather than jose: every authenticated request verifies a token and every sign-in and refresh signs one,
 * and jose goes through WebCrypto, whose dispatch costs Node 20 about 70 µs a call where node:crypto's HMAC takes
 * a few.
 */
export function createHs256TokenSigner(secret: string): TokenSigner {
  // fast-jwt keeps the iat it is given (the domain's clock) and adds one only where a caller gave none.
  const sign = createSigner({ key: secret, algorithm: "HS256" });
  // A client presents the same access token on every request until it refreshes, so verified tokens are kept (by
  // their digest, 1000 at most, never past their exp): a repeat costs one hash instead of an HMAC and the claim
  // checks. The claims object handed back is then shared between requests, which the port's Readonly allows.
  // fast-jwt's own cache key, not a cheaper one-shot digest of ours: any key builder of our own makes fast-jwt warn
  // on stderr at every start (GHSA-rp9m-7r4c-75qg), and the difference is under a microsecond a request.
  // `exp` is checked when present; which tokens must carry one is the domain's rule (API keys need not).
  const verify = createVerifier({ key: secret, algorithms: ["HS256"], cache: true });
  return {
    sign: async (claims) => sign({ ...claims }),

    async verify(token) {
      try {
        return verify(token) as Record<string, unknown>;
      } catch (error) {
        // An expected refusal: its reason is in the message, and no cause is kept for the log to print.
        const expired = error instanceof TokenError && error.code === TokenError.codes.expired;
        const reason = expired ? "token is expired" : "unable to parse or verify signature";
        throw new AuthError("bad_jwt", `invalid JWT: ${reason}`);
      }
    },
  };
}
