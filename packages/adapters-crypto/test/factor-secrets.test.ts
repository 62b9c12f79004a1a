import { createCipheriv, hkdfSync, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createFactorSecrets, deriveFactorKey, parseEncryptionKey } from "../src/factor-secrets.ts";

const FACTOR_A = "0b7e6c2e-4a8f-4f3e-9d55-1c2b3a4d5e6f";
const FACTOR_B = "5f1d7a90-2c3b-4e8a-b6d4-7e8f9a0b1c2d";
// The secret as the authenticator has it: base32 of 20 bytes.
const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const key = (fill: number) => Buffer.alloc(32, fill);

describe("factor secrets", () => {
  const secrets = createFactorSecrets({ keyId: "k1", key: key(1) });

  it("open what they sealed, differently each time, in GoTrue's JSON shape", () => {
    const sealed = secrets.seal(FACTOR_A, SECRET);
    expect(secrets.open(FACTOR_A, sealed)).toBe(SECRET);
    expect(secrets.seal(FACTOR_A, SECRET)).not.toBe(sealed);
    const parsed = JSON.parse(sealed);
    expect(Object.keys(parsed)).toEqual(["key_id", "alg", "data", "nonce"]);
    expect(parsed.key_id).toBe("k1");
    expect(parsed.alg).toBe("aes-gcm-hkdf");
    expect(Buffer.from(parsed.nonce, "base64")).toHaveLength(12);
    expect(Buffer.from(parsed.data, "base64")).toHaveLength(SECRET.length + 16);
  });

  it("never show the secret, in base32 or as its bytes", () => {
    const sealed = secrets.seal(FACTOR_A, SECRET);
    expect(sealed).not.toContain(SECRET);
    expect(sealed).not.toContain(SECRET.slice(0, 8));
    expect(sealed).not.toContain(Buffer.from(SECRET).toString("base64").slice(0, 12));
  });

  it("do not open for another factor: a sealed value copied to another row is useless", () => {
    const sealed = secrets.seal(FACTOR_A, SECRET);
    expect(() => secrets.open(FACTOR_B, sealed)).toThrow(/authentication failed/);
  });

  it("open what a retired key sealed while it is among the decryption keys, and seal with the current one", () => {
    const old = createFactorSecrets({ keyId: "k0", key: key(0) });
    const sealedBefore = old.seal(FACTOR_A, SECRET);
    const rotated = createFactorSecrets({ keyId: "k1", key: key(1), decryptionKeys: new Map([["k0", key(0)]]) });
    expect(rotated.open(FACTOR_A, sealedBefore)).toBe(SECRET);
    expect(JSON.parse(rotated.seal(FACTOR_A, SECRET)).key_id).toBe("k1");
    expect(() => secrets.open(FACTOR_A, sealedBefore)).toThrow(/"k0", which is not configured/);
  });

  it("refuse a wrong key under the right id, tampering and malformed values with a clear error", () => {
    const sealed = secrets.seal(FACTOR_A, SECRET);
    expect(() => createFactorSecrets({ keyId: "k1", key: key(2) }).open(FACTOR_A, sealed)).toThrow(
      /authentication failed/,
    );
    const parsed = JSON.parse(sealed);
    const data = Buffer.from(parsed.data, "base64");
    data[0]! ^= 1;
    expect(() => secrets.open(FACTOR_A, JSON.stringify({ ...parsed, data: data.toString("base64") }))).toThrow(
      /authentication failed/,
    );
    expect(() => secrets.open(FACTOR_A, JSON.stringify({ ...parsed, alg: "aes-gcm" }))).toThrow(/algorithm/);
    expect(() => secrets.open(FACTOR_A, JSON.stringify({ ...parsed, nonce: "AAAA" }))).toThrow(/wrong length/);
    expect(() => secrets.open(FACTOR_A, JSON.stringify({ ...parsed, data: "not base64!" }))).toThrow(/base64/);
    expect(() => secrets.open(FACTOR_A, JSON.stringify({ key_id: "k1" }))).toThrow(/not a sealed value/);
    expect(() => secrets.open(FACTOR_A, SECRET)).toThrow(/malformed JSON/);
    expect(() => secrets.open(FACTOR_A, "null")).toThrow(/not a sealed value/);
  });

  it("refuse keys that are not 32 bytes", () => {
    expect(() => createFactorSecrets({ keyId: "k1", key: Buffer.alloc(16) })).toThrow(/32 bytes/);
    expect(() =>
      createFactorSecrets({ keyId: "k1", key: key(1), decryptionKeys: new Map([["k0", Buffer.alloc(31)]]) }),
    ).toThrow(/"k0" is not 32 bytes/);
  });
});

describe("GoTrue compatibility", () => {
  it("opens a value sealed the way GoTrue's crypto.NewEncryptedString seals it", () => {
    // GoTrue: HKDF-SHA256 over the base64url-decoded key, nil salt, info = factor id; AES-256-GCM, no additional
    // data; the JSON of EncryptedString, whose []byte fields encode as standard padded base64.
    const gotrueKey = "7Bu2ODe0Rmmz3q4rTm9EgDBcqGwz4mSK5QAxaJ0VViE";
    const aesKey = Buffer.from(hkdfSync("sha256", Buffer.from(gotrueKey, "base64url"), Buffer.alloc(0), FACTOR_A, 32));
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", aesKey, nonce);
    const data = Buffer.concat([cipher.update(SECRET, "utf8"), cipher.final(), cipher.getAuthTag()]);
    const sealed = `{"key_id":"gotrue-key","alg":"aes-gcm-hkdf","data":"${data.toString("base64")}","nonce":"${nonce.toString("base64")}"}`;

    const secrets = createFactorSecrets({ keyId: "gotrue-key", key: parseEncryptionKey(gotrueKey) });
    expect(secrets.open(FACTOR_A, sealed)).toBe(SECRET);
    expect(() => secrets.open(FACTOR_B, sealed)).toThrow();
  });
});

describe("factor keys", () => {
  it("derive a stable 32-byte key per secret", () => {
    expect(deriveFactorKey("db-secret")).toHaveLength(32);
    expect(deriveFactorKey("db-secret").equals(deriveFactorKey("db-secret"))).toBe(true);
    expect(deriveFactorKey("db-secret").equals(deriveFactorKey("db-secret-2"))).toBe(false);
    const expected = hkdfSync("sha256", Buffer.from("db-secret"), Buffer.alloc(0), "latchkey mfa factor secrets", 32);
    expect(deriveFactorKey("db-secret").equals(Buffer.from(expected))).toBe(true);
  });

  it("parse 32-byte keys in base64url or standard base64, padded or not", () => {
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i * 7));
    for (const text of [
      bytes.toString("base64url"),
      bytes.toString("base64"),
      bytes.toString("base64").replace(/=+$/, ""),
      ` ${bytes.toString("base64url")}\n`,
    ]) {
      expect(parseEncryptionKey(text).equals(bytes)).toBe(true);
    }
  });

  it("refuse keys of another length or not in base64, saying which", () => {
    expect(() => parseEncryptionKey(Buffer.alloc(16).toString("base64url"))).toThrow(/16 bytes.*must be 32/);
    expect(() => parseEncryptionKey(Buffer.alloc(33).toString("base64url"))).toThrow(/33 bytes/);
    expect(() => parseEncryptionKey("")).toThrow(/not base64url/);
    expect(() => parseEncryptionKey("not a key at all, no")).toThrow(/not base64url/);
  });
});
