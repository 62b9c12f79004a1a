import { generateKeyPairSync, type KeyObject, randomUUID } from "node:crypto";
import { parseKeyRing, type SigningAlgorithm } from "./key-ring.ts";

/** What `keys generate` makes by default: the specification's. */
export const DEFAULT_KEY_ALGORITHM = "RS256";

export type AsymmetricAlgorithm = Exclude<SigningAlgorithm, "HS256">;
export const ASYMMETRIC_ALGORITHMS: readonly AsymmetricAlgorithm[] = ["RS256", "RS512", "ES256", "ES512", "EdDSA"];

function keyPair(alg: AsymmetricAlgorithm): KeyObject {
  switch (alg) {
    case "RS256":
    case "RS512":
      return generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    case "ES256":
      return generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    case "ES512":
      return generateKeyPairSync("ec", { namedCurve: "P-521" }).privateKey;
    case "EdDSA":
      return generateKeyPairSync("ed25519").privateKey;
  }
}

/**
 * A new private JWK for JWT_KEYS, in the shape the Supabase CLI writes: a random UUID as kid, `use` sig, `ext`
 * true, and key_ops ["sign", "verify"] for the signer or ["verify"] for a key that only verifies.
 */
function generateSigningKey(alg: AsymmetricAlgorithm, role: "signs" | "verifies"): Record<string, unknown> {
  return {
    ...keyPair(alg).export({ format: "jwk" }),
    kid: randomUUID(),
    alg,
    use: "sig",
    key_ops: role === "signs" ? ["sign", "verify"] : ["verify"],
    ext: true,
  };
}

/** A ring whose one key signs: what `keys generate` prints. */
export function newKeyRing(alg: AsymmetricAlgorithm = DEFAULT_KEY_ALGORITHM): string {
  return JSON.stringify([generateSigningKey(alg, "signs")]);
}

/**
 * The ring with a new key that only verifies, the first step of a rotation: published at once, so verifiers
 * know it before it signs anything. The ring must be valid (KeyRingError otherwise).
 */
export function withNewKey(ring: string, alg: AsymmetricAlgorithm = DEFAULT_KEY_ALGORITHM): string {
  parseKeyRing(ring);
  return JSON.stringify([...(JSON.parse(ring) as unknown[]), generateSigningKey(alg, "verifies")]);
}

/** The ring with `kid` as its signer and every other key verify-only: the second step of a rotation. */
export function withSigner(ring: string, kid: string): string {
  const keys = parseKeyRing(ring).keys;
  if (!keys.some((key) => key.kid === kid)) throw new Error(`no key of the ring has the kid ${JSON.stringify(kid)}`);
  const jwks = JSON.parse(ring) as Record<string, unknown>[];
  return JSON.stringify(jwks.map((jwk) => ({ ...jwk, key_ops: jwk["kid"] === kid ? ["sign", "verify"] : ["verify"] })));
}

/** The ring without the key `kid`, the last step: its tokens are refused from then on. It cannot be the signer. */
export function withoutKey(ring: string, kid: string): string {
  const keys = parseKeyRing(ring).keys;
  const removed = keys.find((key) => key.kid === kid);
  if (!removed) throw new Error(`no key of the ring has the kid ${JSON.stringify(kid)}`);
  if (removed.signs) throw new Error(`the key ${JSON.stringify(kid)} signs: make another key the signer first`);
  const jwks = JSON.parse(ring) as Record<string, unknown>[];
  return JSON.stringify(jwks.filter((jwk) => jwk["kid"] !== kid));
}
