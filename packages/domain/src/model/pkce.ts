import { AuthError } from "../errors.ts";
import type { CodeChallengeMethod } from "./one-time-token.ts";

export interface PkceChallenge {
  readonly challenge: string;
  readonly method: CodeChallengeMethod;
}

// RFC 7636: 43 to 128 characters of the unreserved set, for challenges and verifiers alike.
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * The PKCE parameters of a request, or null when it has none. Both or neither must be given; the method is
 * `s256` or `plain`, in any case.
 */
export function readPkceChallenge(challenge: string | undefined, method: string | undefined): PkceChallenge | null {
  const hasChallenge = challenge !== undefined && challenge !== "";
  const hasMethod = method !== undefined && method !== "";
  if (!hasChallenge && !hasMethod) return null;
  if (!hasChallenge || !hasMethod) {
    throw new AuthError("validation_failed", "PKCE flow requires code_challenge_method and code_challenge");
  }
  const normalized = method.toLowerCase();
  if (normalized !== "s256" && normalized !== "plain") {
    throw new AuthError("validation_failed", "code challenge method must be s256 or plain");
  }
  if (!PKCE_VALUE.test(challenge)) {
    throw new AuthError(
      "validation_failed",
      "code challenge must be between 43 and 128 characters of letters, digits, hyphens, periods, underscores and tildes",
    );
  }
  return { challenge, method: normalized };
}

/** Whether the verifier answers the challenge; `sha256` is the base64url SHA-256 transform (Secrets.sha256). */
export function verifierMatches(
  verifier: string,
  flow: PkceChallenge,
  sha256: (value: string) => string,
  equal: (a: string, b: string) => boolean,
): boolean {
  if (!PKCE_VALUE.test(verifier)) return false;
  return equal(flow.method === "s256" ? sha256(verifier) : verifier, flow.challenge);
}
