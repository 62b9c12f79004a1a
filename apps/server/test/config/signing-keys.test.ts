import { readFileSync } from "node:fs";
import { join } from "node:path";
import { newKeyRing, withNewKey } from "@latchkey/adapters-crypto";
import { describe, expect, it } from "vitest";
import { load, PRODUCTION_ENV, problemsOf, production, tempCwd } from "./support.ts";

const kidOf = (ring: string) => (JSON.parse(ring) as { kid: string }[])[0]!.kid;

describe("JWT_KEYS", () => {
  it("reads a ring, and derives the valid methods from it with HS256 kept for JWT_SECRET's tokens", () => {
    const ring = withNewKey(newKeyRing("RS256"), "ES256");
    const config = production({ AUTH_JWT_KEYS: ring });
    expect(config.jwt.keys?.signer.kid).toBe(kidOf(ring));
    expect(config.jwt.validMethods).toEqual(["HS256", "RS256", "ES256"]);
    expect(production().jwt).toMatchObject({ keys: undefined, validMethods: ["HS256"] });
  });

  it("stops the start on a bad ring, naming each problem and never a key's material", () => {
    const [signer] = JSON.parse(newKeyRing("ES256")) as Record<string, unknown>[];
    const ring = JSON.stringify([
      { ...signer, kid: undefined },
      { ...signer, kid: "b" },
      { ...signer, kid: "b" },
    ]);
    const problems = problemsOf({ ...PRODUCTION_ENV, AUTH_JWT_KEYS: ring });
    expect(problems).toEqual([
      "AUTH_JWT_KEYS: key 1: it needs a kid, which goes in the header of the tokens it signs",
      'AUTH_JWT_KEYS: two keys share the kid "b"',
      'AUTH_JWT_KEYS: 2 keys have "sign" in their key_ops (kid "b", kid "b"): exactly one may sign',
    ]);
    expect(problems.join("\n")).not.toContain(String(signer!["d"]));
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_JWT_KEYS: JSON.stringify({ keys: [signer] }) })).toEqual([
      'AUTH_JWT_KEYS: JWT_KEYS must be a JSON array of private JWKs, not an object with "keys"',
    ]);
  });

  it("reads JWT_VALID_METHODS under both of GoTrue's spellings, and refuses algorithms it does not verify", () => {
    expect(production({ AUTH_JWT_VALID_METHODS: "HS256, RS256" }).jwt.validMethods).toEqual(["HS256", "RS256"]);
    expect(production({ GOTRUE_JWT_VALIDMETHODS: "HS256" }).jwt.validMethods).toEqual(["HS256"]);
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_JWT_VALID_METHODS: "HS256,PS256" })).toEqual([
      'AUTH_JWT_VALID_METHODS: expected a comma-separated list of HS256, RS256, RS512, ES256, ES512, EdDSA, got "HS256,PS256"',
    ]);
  });

  it("refuses valid methods that leave out the signer's algorithm, and warns when they lock out JWT_SECRET's keys", () => {
    const ring = newKeyRing("ES256");
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_JWT_KEYS: ring, AUTH_JWT_VALID_METHODS: "HS256,RS256" })).toEqual([
      `AUTH_JWT_VALID_METHODS leaves out ES256, the algorithm of the signing key (kid "${kidOf(ring)}"): every token it signs would be refused`,
    ]);
    const strict = production({
      AUTH_JWT_KEYS: ring,
      AUTH_JWT_VALID_METHODS: "ES256",
      AUTH_DB_SECRET: "7d1c9e3b5a2f4c6e8d0b1a3c5e7f9b2d",
    });
    expect(strict.warnings).toEqual([
      "AUTH_JWT_VALID_METHODS leaves out HS256: tokens signed with JWT_SECRET, the anon and service_role keys among them, are refused",
    ]);
  });

  it("in the development profile, signs with an RS256 key generated once and kept", () => {
    const cwd = tempCwd();
    const first = load({}, { cwd });
    const again = load({}, { cwd });
    expect(first.jwt.keys?.signer.alg).toBe("RS256");
    expect(again.jwt.keys?.signer.kid).toBe(first.jwt.keys?.signer.kid);
    expect(first.jwt.validMethods).toEqual(["HS256", "RS256"]);
    expect(readFileSync(join(cwd, ".latchkey", "jwt-keys.json"), "utf8")).toContain(first.jwt.keys!.signer.kid!);
  });
});

describe("DB_SECRET", () => {
  it("is asked for at start in production when unset, and must be long enough", () => {
    expect(production().warnings).toContain(
      "DB_SECRET is unset, so JWT_SECRET also keys what is stored (refresh tokens, codes, queued mail): changing JWT_SECRET would end every session; set DB_SECRET to JWT_SECRET's value now to keep them apart",
    );
    expect(production({ AUTH_DB_SECRET: "5e0a8c2f4b6d9e1a3c7f0b2d4e6a8c1f" }).warnings).toEqual([]);
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_DB_SECRET: "short" })).toEqual([
      "AUTH_DB_SECRET: must be at least 32 characters; generate one with `openssl rand -hex 32`",
    ]);
  });
});

describe("the key of TOTP secrets", () => {
  const key = Buffer.alloc(32, 7).toString("base64url");

  it("is DB_SECRET's, or SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY with its id; production without either keeps TOTP off, saying so", () => {
    const unkeyed = production();
    expect(unkeyed.mfa).toMatchObject({ totpEnrollEnabled: false, totpVerifyEnabled: false });
    expect(unkeyed.warnings).toContain(
      "TOTP factors are off. TOTP factors need a key of their own for their secrets, not JWT_SECRET: set AUTH_DB_SECRET (to JWT_SECRET's value, to keep every session and code working) or AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY",
    );
    expect(production({ AUTH_DB_SECRET: "5e0a8c2f4b6d9e1a3c7f0b2d4e6a8c1f" }).mfa.totpEnrollEnabled).toBe(true);
    const keyed = production({
      AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: key,
      AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID: "key-2026",
      AUTH_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS: `key-2025:${Buffer.alloc(32, 1).toString("base64")}`,
    });
    expect(keyed.mfa.totpEnrollEnabled).toBe(true);
    expect(keyed.security.encryptionKey).toEqual(Buffer.alloc(32, 7));
    expect([...keyed.security.decryptionKeys.keys()]).toEqual(["key-2025"]);
  });

  it("stops the start when TOTP is asked for without one, or a key comes without its id or is not 32 bytes", () => {
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_MFA_TOTP_ENROLL_ENABLED: "true" })).toEqual([
      "AUTH_MFA_TOTP_ENROLL_ENABLED: TOTP factors need a key of their own for their secrets, not JWT_SECRET: set AUTH_DB_SECRET (to JWT_SECRET's value, to keep every session and code working) or AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY",
    ]);
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: key })).toEqual([
      "AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID is required when AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY is set",
    ]);
    const short = Buffer.alloc(16).toString("base64url");
    expect(
      problemsOf({
        ...PRODUCTION_ENV,
        AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: short,
        AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID: "k",
      }),
    ).toEqual(["AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: expected 32 bytes in base64url (openssl rand -base64 32)"]);
    // A switch turned off asks for nothing.
    expect(
      production({ AUTH_MFA_TOTP_ENROLL_ENABLED: "false", AUTH_MFA_TOTP_VERIFY_ENABLED: "false" }).warnings,
    ).not.toContain(expect.stringMatching(/^TOTP factors are off/));
  });
});
