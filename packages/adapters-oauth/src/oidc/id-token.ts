import { createHash } from "node:crypto";
import { createRemoteJWKSet, customFetch, decodeProtectedHeader, type JWTPayload, jwtVerify } from "jose";
import { PROVIDER_TIMEOUT_MS } from "../http/bounded-fetch.ts";
import { providerFailure } from "../http/provider-http.ts";

export interface IdTokenCheck {
  readonly provider: string;
  readonly idToken: string;
  readonly jwksUri: string;
  /** The accepted issuers; a function for providers whose issuer follows a pattern (Azure's tenants). */
  readonly issuer: string | readonly string[] | ((iss: string) => boolean);
  /** The accepted audiences: the configured client ids. */
  readonly audiences: readonly string[];
  /** When given, the token's `at_hash` (if any) must match it. */
  readonly accessToken?: string | undefined;
}

export interface IdTokenKeys {
  /** Verifies signature, expiry, issuer, audience and `at_hash`; the claims of a valid token. */
  verify(check: IdTokenCheck): Promise<JWTPayload>;
}

/** How long a provider's key set is used before it is fetched again. */
const JWKS_MAX_AGE_MS = 10 * 60 * 1000;
/** The least time between two fetches of one key set. */
const JWKS_COOLDOWN_MS = 30 * 1000;

/** The id_token algorithms providers use; `none` and HMAC are never accepted. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

/**
 * id_token verification with jose: key sets fetched through the bounded fetch and cached per URL by jose (which
 * refetches on an unknown `kid`, so a provider's key rotation is followed).
 */
export function createIdTokenKeys(fetchFn: typeof globalThis.fetch): IdTokenKeys {
  const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  const keySet = (uri: string) => {
    let set = keySets.get(uri);
    if (!set) {
      set = createRemoteJWKSet(new URL(uri), {
        [customFetch]: (url: string, init: RequestInit) => fetchFn(url, init),
        // jose fetches a set once at a time, keeps it this long, and refetches sooner only for an unknown `kid`,
        // at most once in the cooldown: a flood of tokens with made-up kids cannot make us hammer the provider.
        cacheMaxAge: JWKS_MAX_AGE_MS,
        cooldownDuration: JWKS_COOLDOWN_MS,
        timeoutDuration: PROVIDER_TIMEOUT_MS,
      });
      keySets.set(uri, set);
    }
    return set;
  };
  return {
    async verify(check) {
      const fail = (message: string, cause?: unknown) => providerFailure(check.provider, "id_token", message, cause);
      let payload: JWTPayload;
      try {
        // OpenID Connect requires `exp`: a token without one would be good for ever, and could not be remembered
        // until it expires (the id_token grant signs in once with each token).
        ({ payload } = await jwtVerify(check.idToken, keySet(check.jwksUri), {
          algorithms: ALGORITHMS,
          requiredClaims: ["exp"],
        }));
      } catch (error) {
        throw fail("its id_token is not valid", error);
      }
      const iss = payload.iss ?? "";
      const issuerOk =
        typeof check.issuer === "function"
          ? check.issuer(iss)
          : (typeof check.issuer === "string" ? [check.issuer] : check.issuer).includes(iss);
      if (!issuerOk) throw fail("its id_token has another issuer", { iss });
      const audiences = typeof payload.aud === "string" ? [payload.aud] : (payload.aud ?? []);
      if (!audiences.some((aud) => check.audiences.includes(aud))) {
        throw fail("its id_token is for another audience", { aud: payload.aud });
      }
      if (typeof payload.sub !== "string" || payload.sub === "") throw fail("its id_token has no sub claim");
      if (check.accessToken !== undefined && typeof payload["at_hash"] === "string") {
        const expected = accessTokenHash(check.accessToken, decodeProtectedHeader(check.idToken).alg ?? "");
        if (expected !== payload["at_hash"]) throw fail("its id_token's at_hash does not match the access token");
      }
      return payload;
    },
  };
}

/** OIDC Core 3.1.3.6: the left half of the access token's hash, by the alg's hash size, base64url. */
export function accessTokenHash(accessToken: string, alg: string): string {
  const bits = alg === "EdDSA" ? "512" : (/(\d{3})$/.exec(alg)?.[1] ?? "256");
  const digest = createHash(`sha${bits}`).update(accessToken).digest();
  return digest.subarray(0, digest.length / 2).toString("base64url");
}
