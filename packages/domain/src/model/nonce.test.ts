import { describe, expect, it } from "vitest";
import { createTestSecrets } from "../testing/test-secrets.ts";
import { nonceMatches } from "./nonce.ts";

const { sha256, equal } = createTestSecrets();
/** SHA-256("abc") in lower-case hex (FIPS 180-2's first example). */
const abcHex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

const matches = (raw: string, tokenNonce: string) => nonceMatches(raw, tokenNonce, sha256, equal);

describe("an id_token's nonce", () => {
  it("matches the raw nonce whose SHA-256, in lower-case hex, it carries", () => {
    expect(matches("abc", abcHex)).toBe(true);
  });

  it("matches the hex of any raw nonce's SHA-256, whatever bytes the digest holds", () => {
    for (const raw of ["", "n-0S6_WzA2Mj", "ünïcødé nonce", "x".repeat(200)]) {
      const hex = Buffer.from(sha256(raw), "base64url").toString("hex");
      expect(matches(raw, hex), raw).toBe(true);
    }
  });

  it("does not match another raw nonce", () => {
    expect(matches("abd", abcHex)).toBe(false);
    expect(matches("abc ", abcHex)).toBe(false);
  });

  it("does not match when the token carries the raw nonce itself instead of its hash", () => {
    expect(matches("abc", "abc")).toBe(false);
  });

  it("is read only as 64 lower-case hex digits: upper case, base64url, cut or padded values never match", () => {
    expect(matches("abc", abcHex.toUpperCase())).toBe(false);
    expect(matches("abc", sha256("abc"))).toBe(false);
    expect(matches("abc", abcHex.slice(0, 62))).toBe(false);
    expect(matches("abc", `${abcHex}00`)).toBe(false);
    expect(matches("abc", ` ${abcHex}`)).toBe(false);
  });
});
