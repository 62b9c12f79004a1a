import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject, sign, verify } from "node:crypto";

/** The algorithms Latchkey signs and verifies with, as GoTrue names them. */
export const SIGNING_ALGORITHMS = ["HS256", "RS256", "RS512", "ES256", "ES512", "EdDSA"] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** A public key as /.well-known/jwks.json publishes it. */
export interface PublicJwk {
  readonly kty: string;
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly use: "sig";
  readonly key_ops: ["verify"];
  readonly [member: string]: unknown;
}

/** One key of the ring, ready to use: nothing is parsed again per token. */
export interface RingKey {
  /** Absent only for an `oct` key, which is then found as JWT_SECRET is (a token without a known kid). */
  readonly kid: string | undefined;
  readonly alg: SigningAlgorithm;
  readonly signs: boolean;
  /** Signs: the private key as PEM (what fast-jwt takes, parsed once and kept), or the HMAC secret. */
  readonly signingKey: string | Buffer;
  /** Verifies: the public key as PEM (what fast-jwt takes), or the HMAC secret. */
  readonly verifyingKey: string | Buffer;
  /** What the JWKS publishes; null for an HMAC secret, which is never published. */
  readonly publicJwk: PublicJwk | null;
}

export interface KeyRing {
  readonly keys: readonly RingKey[];
  /** The one key with "sign" in its key_ops. */
  readonly signer: RingKey;
}

/** A ring that cannot be used; the problems name keys by position and kid, never by their material. */
export class KeyRingError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join("; "));
    this.name = "KeyRingError";
  }
}

const MIN_RSA_BITS = 2048;
const MIN_SECRET_BYTES = 32;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Which algorithms a key type and curve allow, the first being the one assumed when `alg` is absent. */
function algorithmsOf(jwk: Record<string, unknown>): readonly SigningAlgorithm[] | string {
  switch (jwk["kty"]) {
    case "RSA":
      return ["RS256", "RS512"];
    case "EC":
      if (jwk["crv"] === "P-256") return ["ES256"];
      if (jwk["crv"] === "P-521") return ["ES512"];
      return `its curve must be P-256 (ES256) or P-521 (ES512)`;
    case "OKP":
      return jwk["crv"] === "Ed25519" ? ["EdDSA"] : "its curve must be Ed25519 (EdDSA)";
    case "oct":
      return ["HS256"];
    default:
      return "its kty must be RSA, EC, OKP or oct";
  }
}

/**
 * Reads JWT_KEYS as GoTrue does: a JSON array of private JWKs (RSA, EC P-256/P-521, OKP Ed25519, or an `oct`
 * secret), exactly one of them with "sign" in its key_ops. Every asymmetric key needs a kid, which goes in the
 * header of the tokens it signs and is how a token finds its key again. Throws KeyRingError with every problem.
 */
export function parseKeyRing(text: string): KeyRing {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new KeyRingError(["JWT_KEYS is not JSON"]);
  }
  if (!Array.isArray(parsed)) {
    const jwks = parsed !== null && typeof parsed === "object" && "keys" in parsed;
    throw new KeyRingError([
      jwks
        ? 'JWT_KEYS must be a JSON array of private JWKs, not an object with "keys"'
        : "JWT_KEYS must be a JSON array of private JWKs",
    ]);
  }
  const problems: string[] = [];
  const keys: RingKey[] = [];
  parsed.forEach((element: unknown, index) => {
    const key = readKey(element, index, problems);
    if (key) keys.push(key);
  });
  if (parsed.length === 0) problems.push("JWT_KEYS is an empty array: it needs one key that signs");
  const kids = keys.flatMap((key) => (key.kid === undefined ? [] : [key.kid]));
  for (const kid of new Set(kids.filter((kid, index) => kids.indexOf(kid) !== index))) {
    problems.push(`two keys share the kid ${JSON.stringify(kid)}`);
  }
  const signers = keys.filter((key) => key.signs);
  if (problems.length === 0 && signers.length === 0) {
    problems.push('no key has "sign" in its key_ops: exactly one key signs, the others only verify');
  }
  if (signers.length > 1) {
    const named = signers.map((key) =>
      key.kid === undefined ? "a key without kid" : `kid ${JSON.stringify(key.kid)}`,
    );
    problems.push(`${signers.length} keys have "sign" in their key_ops (${named.join(", ")}): exactly one may sign`);
  }
  if (problems.length > 0) throw new KeyRingError(problems);
  return { keys, signer: signers[0]! };
}

function readKey(element: unknown, index: number, problems: string[]): RingKey | null {
  if (element === null || typeof element !== "object" || Array.isArray(element)) {
    problems.push(`key ${index + 1} is not a JWK object`);
    return null;
  }
  const jwk = element as Record<string, unknown>;
  const kid = typeof jwk["kid"] === "string" && jwk["kid"] !== "" ? jwk["kid"] : undefined;
  const name = `key ${index + 1}${kid === undefined ? "" : ` (kid ${JSON.stringify(kid)})`}`;
  const fail = (problem: string) => {
    problems.push(`${name}: ${problem}`);
    return null;
  };

  const allowed = algorithmsOf(jwk);
  if (typeof allowed === "string") return fail(allowed);
  const alg = jwk["alg"] === undefined ? allowed[0]! : (jwk["alg"] as SigningAlgorithm);
  if (!allowed.includes(alg)) return fail(`its alg must be ${allowed.join(" or ")} for this key type`);
  const ops = jwk["key_ops"];
  if (ops !== undefined && !(Array.isArray(ops) && ops.every((op) => typeof op === "string"))) {
    return fail("its key_ops must be a list of strings");
  }
  const signs = Array.isArray(ops) && ops.includes("sign");

  if (jwk["kty"] === "oct") {
    const secret = typeof jwk["k"] === "string" && BASE64URL.test(jwk["k"]) ? Buffer.from(jwk["k"], "base64url") : null;
    if (!secret) return fail("an oct key needs its secret, k, in base64url");
    if (secret.length < MIN_SECRET_BYTES) return fail(`its secret must be at least ${MIN_SECRET_BYTES} bytes`);
    return { kid, alg, signs, signingKey: secret, verifyingKey: secret, publicJwk: null };
  }

  if (kid === undefined) return fail("it needs a kid, which goes in the header of the tokens it signs");
  if (typeof jwk["d"] !== "string") return fail("it is not a private key (d is missing)");
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: jwk as JsonWebKey, format: "jwk" });
  } catch {
    return fail("it is not a usable private key (a member is missing or malformed)");
  }
  const bits = privateKey.asymmetricKeyDetails?.modulusLength;
  if (jwk["kty"] === "RSA" && (bits === undefined || bits < MIN_RSA_BITS)) {
    return fail(`an RSA key must have at least ${MIN_RSA_BITS} bits`);
  }
  const publicKey = createPublicKey(privateKey);
  // A JWK's public members are taken as given: a private part that does not belong to them would sign tokens that
  // the published key never verifies. One signature at start shows they belong together.
  if (!belongTogether(privateKey, publicKey, alg)) return fail("its private and public members do not belong together");
  const publicJwk: PublicJwk = {
    ...publicKey.export({ format: "jwk" }),
    kty: String(jwk["kty"]),
    kid,
    alg,
    use: "sig",
    key_ops: ["verify"],
  };
  return {
    kid,
    alg,
    signs,
    signingKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    verifyingKey: publicKey.export({ type: "spki", format: "pem" }).toString(),
    publicJwk,
  };
}

function belongTogether(privateKey: KeyObject, publicKey: KeyObject, alg: SigningAlgorithm): boolean {
  const data = Buffer.from("latchkey key check");
  const hash = alg === "EdDSA" ? null : "sha256";
  try {
    return verify(hash, data, publicKey, sign(hash, data, privateKey));
  } catch {
    return false;
  }
}
