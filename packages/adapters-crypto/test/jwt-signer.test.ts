import { createHmac } from "node:crypto";
import { isAuthError, type TokenSigner } from "@latchkey/domain";
import { describeTokenSignerContract } from "@latchkey/domain/testing";
import { decodeProtectedHeader, generateKeyPair, importJWK, jwtVerify, SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it, vi } from "vitest";
import {
  ASYMMETRIC_ALGORITHMS,
  createJwtSigner,
  type KeyRing,
  newKeyRing,
  parseKeyRing,
  type SigningAlgorithm,
  validMethods,
  withNewKey,
  withoutKey,
  withSigner,
} from "../src/index.ts";

const secret = "a-test-secret-that-is-long-enough-for-hs256";
const key = new TextEncoder().encode(secret);
const now = () => Math.floor(Date.now() / 1000);
const claims = () => ({
  sub: "8d0f5e2a-1c3b-4d5e-8f60-7a8b9c0d1e2f",
  role: "authenticated",
  iat: now(),
  exp: now() + 60,
});
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** The signer of a deployment: JWT_SECRET, and JWT_KEYS when given, with the valid methods derived as at start. */
function deployment(ringText?: string, options: { keyId?: string; methods?: SigningAlgorithm[] } = {}) {
  const ring = ringText === undefined ? undefined : parseKeyRing(ringText);
  return createJwtSigner({ secret, ring, keyId: options.keyId, validMethods: validMethods(ring, options.methods) });
}

async function refusal(signer: TokenSigner, token: string): Promise<string> {
  return signer.verify(token).then(
    () => "accepted",
    (error: unknown) => (isAuthError(error, "bad_jwt") ? error.message : `not bad_jwt: ${String(error)}`),
  );
}

const kidOf = (ring: string, index = 0) => (JSON.parse(ring) as { kid: string }[])[index]!.kid;
const publicJwkOf = (ring: KeyRing) => ring.signer.publicJwk!;

describeTokenSignerContract("HS256 (JWT_SECRET)", async () => ({
  signer: deployment(),
  stranger: createJwtSigner({ secret: `${secret}-other`, validMethods: ["HS256"] }),
  now,
}));

for (const alg of ASYMMETRIC_ALGORITHMS) {
  describeTokenSignerContract(`${alg} ring`, async () => {
    const ring = newKeyRing(alg);
    // The stranger's key has the same kid: a key that merely claims a kid of the ring must not verify.
    const impostor = JSON.stringify([{ ...JSON.parse(newKeyRing(alg))[0], kid: kidOf(ring) }]);
    return { signer: deployment(ring), stranger: deployment(impostor), now };
  });
}

describeTokenSignerContract("oct key in the ring", async () => {
  const oct = (k: string) =>
    JSON.stringify([{ kty: "oct", kid: "hmac-1", alg: "HS256", k, key_ops: ["sign", "verify"] }]);
  return {
    signer: deployment(oct(Buffer.from("a-ring-secret-of-at-least-32-bytes!!").toString("base64url"))),
    stranger: deployment(oct(Buffer.from("another-ring-secret-of-32-bytes-or-more").toString("base64url"))),
    now,
  };
});

describe("HS256 with JWT_SECRET", () => {
  const signer = deployment();

  it("signs without a kid, or with JWT_KEY_ID as kid", async () => {
    expect(decodeProtectedHeader(await signer.sign(claims()))).toEqual({ alg: "HS256", typ: "JWT" });
    const withKid = deployment(undefined, { keyId: "legacy" });
    const token = await withKid.sign(claims());
    expect(decodeProtectedHeader(token)).toEqual({ alg: "HS256", typ: "JWT", kid: "legacy" });
    expect(await withKid.verify(token)).toEqual(expect.objectContaining({ role: "authenticated" }));
  });

  it("accepts a Supabase-style service key signed with the same secret, with or without exp", async () => {
    const serviceKey = await new SignJWT({ role: "service_role" })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime("1h")
      .sign(key);
    expect((await signer.verify(serviceKey))["role"]).toBe("service_role");
    const anonKey = await new SignJWT({ role: "anon" }).setProtectedHeader({ alg: "HS256" }).sign(key);
    expect(await signer.verify(anonKey)).toEqual({ role: "anon" });
  });

  it("refuses other algorithms with the same secret, and asymmetric tokens", async () => {
    const hs512 = await new SignJWT(claims()).setProtectedHeader({ alg: "HS512" }).sign(key);
    expect(await refusal(signer, hs512)).toMatch(/^invalid JWT/);
    const { privateKey } = await generateKeyPair("RS256");
    expect(
      await refusal(signer, await new SignJWT(claims()).setProtectedHeader({ alg: "RS256" }).sign(privateKey)),
    ).toMatch(/^invalid JWT/);
    expect(await refusal(signer, new UnsecuredJWT(claims()).encode())).toMatch(/^invalid JWT/);
  });

  it("starts without a process warning, which an operator would read as a security problem", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      deployment();
      deployment(newKeyRing("ES256"));
      // process.emitWarning emits on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it("keeps refusing a forged sibling of a token it verified, and the token itself once it expires", async () => {
    vi.useFakeTimers({ now: new Date("2026-11-23T12:00:00Z"), toFake: ["Date"] });
    try {
      const good = await signer.sign(claims());
      expect(await signer.verify(good)).toEqual(claims());
      expect(await signer.verify(good)).toEqual(claims());
      const [header, , signature] = good.split(".");
      await expect(
        signer.verify(`${header}.${encode({ ...claims(), role: "service_role" })}.${signature}`),
      ).rejects.toThrow();
      vi.setSystemTime(new Date("2026-11-23T12:01:01Z"));
      expect(await refusal(signer, good)).toBe("invalid JWT: token is expired");
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("a key ring", () => {
  it("signs with the ring's signer, its kid in the header, in a JWS any library verifies with the published key", async () => {
    for (const alg of ASYMMETRIC_ALGORITHMS) {
      const text = newKeyRing(alg);
      const ring = parseKeyRing(text);
      // One set of claims: generating them again could fall in the next second (RSA key generation takes a while).
      const signed = claims();
      const token = await deployment(text).sign(signed);
      expect(decodeProtectedHeader(token)).toEqual({ alg, typ: "JWT", kid: kidOf(text) });
      const { payload } = await jwtVerify(token, await importJWK(publicJwkOf(ring), alg));
      expect(payload).toEqual(signed);
    }
  });

  it("keeps accepting HS256 tokens of JWT_SECRET (the anon and service_role keys), unless HS256 is left out", async () => {
    const ring = newKeyRing("RS256");
    const serviceKey = await new SignJWT({ role: "service_role" }).setProtectedHeader({ alg: "HS256" }).sign(key);
    expect(await refusal(deployment(ring), serviceKey)).toBe("accepted");
    expect(await refusal(deployment(ring, { methods: ["RS256"] }), serviceKey)).toBe(
      "invalid JWT: signing method HS256 is invalid",
    );
  });

  it("rotates without signing anyone out: a new key verifies first, then signs, and the old one goes last", async () => {
    const first = newKeyRing("RS256");
    const oldToken = await deployment(first).sign(claims());

    const added = withNewKey(first, "ES256");
    const newKid = (JSON.parse(added) as { kid: string }[])[1]!.kid;
    expect(await refusal(deployment(added), oldToken)).toBe("accepted");
    expect(decodeProtectedHeader(await deployment(added).sign(claims())).kid).toBe(kidOf(first));

    const switched = withSigner(added, newKid);
    const newToken = await deployment(switched).sign(claims());
    expect(decodeProtectedHeader(newToken)).toMatchObject({ alg: "ES256", kid: newKid });
    expect(await refusal(deployment(switched), oldToken)).toBe("accepted");
    expect(await refusal(deployment(switched), newToken)).toBe("accepted");

    const retired = withoutKey(switched, kidOf(first));
    expect(await refusal(deployment(retired), newToken)).toBe("accepted");
    // Its algorithm went with it: RS256 is no longer among the valid methods.
    expect(await refusal(deployment(retired), oldToken)).toBe("invalid JWT: signing method RS256 is invalid");
    // Retired for another key of the same algorithm: the kid is what no longer verifies.
    const sameAlg = withNewKey(first, "RS256");
    const successor = withoutKey(withSigner(sameAlg, kidOf(sameAlg, 1)), kidOf(first));
    expect(await refusal(deployment(successor), oldToken)).toBe(
      "invalid JWT: no key of this server verifies this token",
    );
    expect(() => withoutKey(switched, newKid)).toThrow(/signs: make another key the signer first/);
  });

  it("refuses alg none, an HS256 token made with a public key as secret, an unknown kid and methods left out", async () => {
    const text = newKeyRing("RS256");
    const ring = parseKeyRing(text);
    const signer = deployment(text);
    const kid = kidOf(text);
    const raised = encode({ ...claims(), role: "service_role" });

    expect(await refusal(signer, `${encode({ alg: "none", typ: "JWT", kid })}.${raised}.`)).toBe(
      "invalid JWT: signing method none is invalid",
    );
    for (const asSecret of [ring.signer.verifyingKey, JSON.stringify(publicJwkOf(ring))]) {
      for (const header of [
        { alg: "HS256", typ: "JWT", kid },
        { alg: "HS256", typ: "JWT" },
      ]) {
        const body = `${encode(header)}.${raised}`;
        const forged = `${body}.${createHmac("sha256", asSecret).update(body).digest("base64url")}`;
        expect(await refusal(signer, forged)).toMatch(/^invalid JWT/);
      }
    }
    const { privateKey } = await generateKeyPair("RS256");
    const unknownKid = await new SignJWT(claims())
      .setProtectedHeader({ alg: "RS256", kid: "not-in-the-ring" })
      .sign(privateKey);
    expect(await refusal(signer, unknownKid)).toBe("invalid JWT: no key of this server verifies this token");
    const es256Ring = newKeyRing("ES256");
    const esToken = await deployment(es256Ring).sign(claims());
    expect(await refusal(deployment(withNewKey(es256Ring, "RS256"), { methods: ["HS256", "RS256"] }), esToken)).toBe(
      "invalid JWT: signing method ES256 is invalid",
    );
    expect(await refusal(signer, "e30")).toBe("invalid JWT: unable to parse or verify signature");
  });
});
