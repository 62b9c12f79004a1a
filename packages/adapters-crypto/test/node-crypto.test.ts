import { describe, expect, it } from "vitest";
import { createSecrets, cryptoRandom } from "../src/node-crypto.ts";

describe("keyed secrets", () => {
  const secrets = createSecrets("master-secret-one");

  it("digest deterministically under a key, so a copy of the database alone cannot be checked against guesses", () => {
    expect(secrets.digest("123456")).toBe(secrets.digest("123456"));
    expect(secrets.digest("123456")).not.toBe(secrets.digest("123457"));
    expect(createSecrets("master-secret-two").digest("123456")).not.toBe(secrets.digest("123456"));
    expect(secrets.digest("x")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("derive the next refresh token deterministically, under a key of its own", () => {
    const next = secrets.nextRefreshToken("parent-token");
    expect(next).toBe(secrets.nextRefreshToken("parent-token"));
    expect(next).not.toBe(secrets.digest("parent-token"));
    expect(createSecrets("master-secret-two").nextRefreshToken("parent-token")).not.toBe(next);
    expect(next).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("compare in constant time, and tell strings of different lengths apart", () => {
    expect(secrets.equal("abc", "abc")).toBe(true);
    expect(secrets.equal("abc", "abd")).toBe(false);
    expect(secrets.equal("abc", "abcd")).toBe(false);
  });
});

describe("crypto random", () => {
  it("makes tokens of the asked entropy, digit codes and v4 UUIDs", () => {
    expect(Buffer.from(cryptoRandom.token(32), "base64url")).toHaveLength(32);
    expect(cryptoRandom.digits(8)).toMatch(/^\d{8}$/);
    expect(cryptoRandom.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const codes = new Set(Array.from({ length: 200 }, () => cryptoRandom.digits(6)));
    expect(codes.size).toBeGreaterThan(190);
  });
});

describe("sealing", () => {
  const secrets = createSecrets("master-secret-one");

  it("opens what it sealed, and seals the same text differently each time", () => {
    const sealed = secrets.seal('{"otp":"123456","to":"ada@example.com"}');
    expect(secrets.open(sealed)).toBe('{"otp":"123456","to":"ada@example.com"}');
    expect(sealed).not.toContain("123456");
    expect(secrets.seal("same")).not.toBe(secrets.seal("same"));
  });

  it("refuses what was tampered with or sealed under another key", () => {
    const sealed = secrets.seal("the message");
    const bytes = Buffer.from(sealed, "base64url");
    bytes[bytes.length - 1]! ^= 1;
    expect(() => secrets.open(bytes.toString("base64url"))).toThrow();
    expect(() => createSecrets("master-secret-two").open(sealed)).toThrow();
    expect(() => secrets.open("short")).toThrow();
  });
});
