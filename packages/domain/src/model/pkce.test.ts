import { createHash, timingSafeEqual } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isAuthError } from "../errors.ts";
import { readPkceChallenge, verifierMatches } from "./pkce.ts";

const sha256 = (value: string) => createHash("sha256").update(value).digest("base64url");
const equal = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"; // RFC 7636 appendix B

describe("PKCE", () => {
  it("reads both parameters or none, the method in any case", () => {
    expect(readPkceChallenge(undefined, undefined)).toBeNull();
    expect(readPkceChallenge("", "")).toBeNull();
    expect(readPkceChallenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "S256")).toEqual({
      challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      method: "s256",
    });
  });

  it.each([
    ["a challenge without a method", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", undefined],
    ["a method without a challenge", undefined, "s256"],
    ["an unknown method", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "md5"],
    ["a short challenge", "short", "plain"],
    ["a challenge with forbidden characters", `${"a".repeat(42)}/`, "plain"],
    ["an over-long challenge", "a".repeat(129), "plain"],
  ])("refuses %s", (_label, challenge, method) => {
    let error: unknown;
    try {
      readPkceChallenge(challenge, method);
    } catch (caught) {
      error = caught;
    }
    expect(isAuthError(error, "validation_failed")).toBe(true);
  });

  it("checks a verifier against an S256 or plain challenge", () => {
    const s256 = { challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", method: "s256" } as const;
    expect(verifierMatches(verifier, s256, sha256, equal)).toBe(true);
    expect(verifierMatches(`${verifier.slice(0, -1)}l`, s256, sha256, equal)).toBe(false);
    expect(verifierMatches(verifier, { challenge: verifier, method: "plain" }, sha256, equal)).toBe(true);
    expect(verifierMatches(s256.challenge, { challenge: s256.challenge, method: "s256" }, sha256, equal)).toBe(false);
    expect(verifierMatches("short", { challenge: "short", method: "plain" }, sha256, equal)).toBe(false);
  });
});
