import { AuthError, type TokenSigner } from "@latchkey/domain";
import { createSigner, createVerifier, TokenError } from "fast-jwt";
import type { KeyRing, RingKey, SigningAlgorithm } from "./key-ring.ts";

export interface JwtSignerOptions {
  /** JWT_SECRET: the HS256 key of tokens without a ring, and of the anon and service_role keys. */
  readonly secret: string;
  /** JWT_KEY_ID: without a ring, the kid of HS256 tokens; with one, a kid that means JWT_SECRET. */
  readonly keyId?: string | undefined;
  /** JWT_KEYS, parsed. */
  readonly ring?: KeyRing | undefined;
  /** The algorithms a token may name (validMethods()); checked before any key is looked up. */
  readonly validMethods: readonly SigningAlgorithm[];
}

type Verify = (token: string) => Record<string, unknown>;

const refused = (reason: string) => new AuthError("bad_jwt", `invalid JWT: ${reason}`);
const UNVERIFIABLE = "unable to parse or verify signature";

/**
 * fast-jwt's signer of the key: it parses a PEM key once and keeps the key object, so a signature costs only the
 * signing itself (about 0.8 ms for RSA-2048 on the bench machine, 40 µs for P-256). It stamps an iat where the
 * claims have none; the domain always gives one.
 */
function signerOf(
  key: Pick<RingKey, "alg" | "kid" | "signingKey">,
): (claims: Readonly<Record<string, unknown>>) => string {
  const sign = createSigner({
    key: key.signingKey,
    algorithm: key.alg,
    ...(key.kid === undefined ? {} : { kid: key.kid }),
  });
  return (claims) => sign({ ...claims });
}

/** fast-jwt's verifier of one key and algorithm. `exp` is checked when present; which tokens need one is the domain's rule. */
function verifierOf(key: string | Buffer, algorithm: SigningAlgorithm): Verify {
  // A client presents the same access token on every request until it refreshes, so verified tokens are kept (by
  // their digest, 1000 at most, never past their exp): a repeat costs one hash. fast-jwt's own cache key: any key
  // builder of ours makes it warn on stderr at every start (GHSA-rp9m-7r4c-75qg).
  return createVerifier({ key, algorithms: [algorithm], cache: true }) as Verify;
}

function headerOf(token: string): Record<string, unknown> {
  const dot = token.indexOf(".");
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, dot), "base64url").toString());
    if (dot > 0 && header !== null && typeof header === "object") return header as Record<string, unknown>;
  } catch {
    // refused below
  }
  throw refused(UNVERIFIABLE);
}

/**
 * The TokenSigner of JWT_SECRET and JWT_KEYS, as GoTrue signs and verifies. New tokens are signed by the ring's
 * signer (else HS256 with JWT_SECRET, with JWT_KEY_ID as kid). A token is verified only if its alg is among the
 * valid methods, then by the ring key its kid names; a kid equal to JWT_KEY_ID, or an HS256 token whose kid the
 * ring does not know, is checked against JWT_SECRET. Anything else is refused: an asymmetric token must name a
 * key of the ring, and a key verifies only its own algorithm (no algorithm confusion).
 */
export function createJwtSigner(options: JwtSignerOptions): TokenSigner {
  const { secret, keyId, ring, validMethods } = options;
  const valid = new Set<string>(validMethods);
  const sign = signerOf(ring?.signer ?? { alg: "HS256", kid: keyId || undefined, signingKey: secret });
  const bySecret = valid.has("HS256") ? verifierOf(secret, "HS256") : null;
  const byKid = new Map<string, Verify>();
  for (const key of ring?.keys ?? []) {
    if (key.kid !== undefined && valid.has(key.alg)) byKid.set(key.kid, verifierOf(key.verifyingKey, key.alg));
  }
  // Without a ring every token is an HS256 one of JWT_SECRET: its verifier checks the alg itself.
  const verifierFor: (token: string) => Verify | null =
    ring === undefined
      ? () => bySecret
      : (token) => {
          const { alg, kid } = headerOf(token);
          if (typeof alg !== "string" || !valid.has(alg)) throw refused(`signing method ${String(alg)} is invalid`);
          if (typeof kid === "string" && ring.keys.some((key) => key.kid === kid)) return byKid.get(kid) ?? null;
          return (kid !== undefined && kid === keyId) || alg === "HS256" ? bySecret : null;
        };

  return {
    sign: async (claims) => sign(claims),
    publiclyVerifiable: ring !== undefined && ring.signer.alg !== "HS256",

    async verify(token) {
      const verify = verifierFor(token);
      if (!verify) throw refused("no key of this server verifies this token");
      try {
        return verify(token);
      } catch (error) {
        // An expected refusal: its reason is in the message, and no cause is kept for the log to print.
        const expired = error instanceof TokenError && error.code === TokenError.codes.expired;
        throw refused(expired ? "token is expired" : UNVERIFIABLE);
      }
    },
  };
}

/**
 * The algorithms a token may name: JWT_VALID_METHODS when set, else those of the ring and HS256. compat: GoTrue
 * derives the list from the ring alone, which locks out the anon and service_role keys signed with JWT_SECRET as
 * soon as a ring is configured (docs/compatibility.md, Signing keys); here HS256 stays unless the operator removes it.
 */
export function validMethods(
  ring: KeyRing | undefined,
  configured: readonly SigningAlgorithm[] | undefined,
): SigningAlgorithm[] {
  if (configured !== undefined && configured.length > 0) return [...new Set(configured)];
  return [...new Set<SigningAlgorithm>(["HS256", ...(ring?.keys ?? []).map((key) => key.alg)])];
}
