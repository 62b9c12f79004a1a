import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ASYMMETRIC_ALGORITHMS, KeyRingError, newKeyRing, parseKeyRing, withNewKey } from "../src/index.ts";

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "k"];

function problemsOf(text: string): readonly string[] {
  try {
    parseKeyRing(text);
  } catch (error) {
    if (error instanceof KeyRingError) return error.problems;
    throw error;
  }
  throw new Error("the ring was accepted");
}

/** Every private member's value of a ring, which no message may echo. */
function secretsOf(text: string): string[] {
  return (JSON.parse(text) as Record<string, unknown>[]).flatMap((jwk) =>
    PRIVATE_MEMBERS.flatMap((member) => (typeof jwk[member] === "string" ? [jwk[member] as string] : [])),
  );
}

const [rsa] = JSON.parse(newKeyRing("RS256")) as Record<string, unknown>[];
const [ec] = JSON.parse(newKeyRing("ES256")) as Record<string, unknown>[];
const verifyOnly = (jwk: Record<string, unknown>) => ({ ...jwk, key_ops: ["verify"] });
const oct = {
  kty: "oct",
  k: Buffer.from("a-secret-for-hmac-of-at-least-32-bytes").toString("base64url"),
  key_ops: ["verify"],
};

describe("JWT_KEYS", () => {
  it("reads GoTrue's shape: one signer, verify-only keys, an oct key without kid", () => {
    const ring = parseKeyRing(JSON.stringify([verifyOnly(ec!), rsa, oct]));
    expect(ring.signer.kid).toBe(rsa!["kid"]);
    expect(ring.keys.map((key) => [key.alg, key.signs])).toEqual([
      ["ES256", false],
      ["RS256", true],
      ["HS256", false],
    ]);
  });

  it.each(ASYMMETRIC_ALGORITHMS)("publishes only the public half of a %s key, marked for verifying", (alg) => {
    const text = newKeyRing(alg);
    const { signer } = parseKeyRing(text);
    const published = JSON.stringify(signer.publicJwk);
    for (const secret of secretsOf(text)) expect(published).not.toContain(secret);
    expect(signer.publicJwk).toMatchObject({ kid: signer.kid, alg, use: "sig", key_ops: ["verify"] });
    for (const member of PRIVATE_MEMBERS) expect(signer.publicJwk).not.toHaveProperty(member);
  });

  it("never publishes an oct key", () => {
    const ring = parseKeyRing(JSON.stringify([rsa, oct]));
    expect(ring.keys.find((key) => key.alg === "HS256")?.publicJwk).toBeNull();
  });

  it.each([
    ["not JSON", "[{", "JWT_KEYS is not JSON"],
    [
      "a JWKS object",
      JSON.stringify({ keys: [rsa] }),
      'JWT_KEYS must be a JSON array of private JWKs, not an object with "keys"',
    ],
    ["an empty array", "[]", "JWT_KEYS is an empty array: it needs one key that signs"],
    [
      "no signer",
      JSON.stringify([verifyOnly(rsa!)]),
      'no key has "sign" in its key_ops: exactly one key signs, the others only verify',
    ],
  ])("stops at %s", (_, text, problem) => {
    expect(problemsOf(text)).toEqual([problem]);
  });

  it("names every key that is wrong, by position and kid, and never echoes key material", () => {
    const { d: _d, ...publicOnly } = rsa!;
    const text = JSON.stringify([
      rsa,
      { ...ec, kid: undefined },
      { ...publicOnly, kid: "public-only", key_ops: ["verify"] },
      { ...ec, kid: "second-signer" },
      { ...ec, kid: "p384", crv: "P-384" },
      { ...oct, k: Buffer.from("short").toString("base64url") },
      { ...verifyOnly(rsa!), alg: "ES256", kid: "wrong-alg" },
      { ...verifyOnly(ec!), kid: rsa!["kid"] },
      "a string",
    ]);
    const problems = problemsOf(text);
    expect(problems).toEqual([
      "key 2: it needs a kid, which goes in the header of the tokens it signs",
      'key 3 (kid "public-only"): it is not a private key (d is missing)',
      'key 5 (kid "p384"): its curve must be P-256 (ES256) or P-521 (ES512)',
      "key 6: its secret must be at least 32 bytes",
      'key 7 (kid "wrong-alg"): its alg must be RS256 or RS512 for this key type',
      "key 9 is not a JWK object",
      `two keys share the kid ${JSON.stringify(rsa!["kid"])}`,
      `2 keys have "sign" in their key_ops (kid ${JSON.stringify(rsa!["kid"])}, kid "second-signer"): exactly one may sign`,
    ]);
    for (const secret of secretsOf(text)) expect(problems.join("\n")).not.toContain(secret);
  });

  it("refuses an RSA key under 2048 bits and a malformed private member", () => {
    const small = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ format: "jwk" });
    expect(problemsOf(JSON.stringify([{ ...small, kid: "small", key_ops: ["sign"] }]))).toEqual([
      'key 1 (kid "small"): an RSA key must have at least 2048 bits',
    ]);
    expect(problemsOf(JSON.stringify([{ ...ec, d: "AAAA" }]))[0]).toMatch(
      /it is not a usable private key|do not belong together/,
    );
    const [other] = JSON.parse(newKeyRing("ES256")) as Record<string, unknown>[];
    expect(problemsOf(JSON.stringify([{ ...ec, d: other!["d"] }]))).toEqual([
      `key 1 (kid ${JSON.stringify(ec!["kid"])}): its private and public members do not belong together`,
    ]);
  });

  it("adds a verify-only key to a valid ring, and refuses to add to an invalid one", () => {
    const ring = parseKeyRing(withNewKey(JSON.stringify([rsa]), "EdDSA"));
    expect(ring.keys.map((key) => [key.alg, key.signs])).toEqual([
      ["RS256", true],
      ["EdDSA", false],
    ]);
    expect(() => withNewKey("[]")).toThrow(KeyRingError);
  });
});
