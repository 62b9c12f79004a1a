import { describe, expect, it } from "vitest";
import { AuthError } from "../errors.ts";
import { assertPasswordAcceptable, MAX_PASSWORD_LENGTH, parseRequiredCharacters } from "./password-policy.ts";

function failure(password: string, policy: Parameters<typeof assertPasswordAcceptable>[1]): AuthError | undefined {
  try {
    assertPasswordAcceptable(password, policy);
    return undefined;
  } catch (error) {
    if (error instanceof AuthError) return error;
    throw error;
  }
}

describe("PASSWORD_REQUIRED_CHARACTERS", () => {
  it("splits on colons and reads \\: as a literal colon", () => {
    expect(parseRequiredCharacters("abc:ABC:0123456789")).toEqual(["abc", "ABC", "0123456789"]);
    expect(parseRequiredCharacters("!@\\:#:xyz")).toEqual(["!@:#", "xyz"]);
    expect(parseRequiredCharacters("\\:")).toEqual([":"]);
    expect(parseRequiredCharacters("")).toEqual([]);
    expect(parseRequiredCharacters("a::b")).toEqual(["a", "b"]);
  });
});

describe("password policy", () => {
  const policy = { minLength: 8, requiredCharacters: ["abcdefghijklmnopqrstuvwxyz", "0123456789", ":"] };

  it("accepts a password meeting every rule, and long passphrases with spaces and emoji", () => {
    expect(failure("abcdefg1:", policy)).toBeUndefined();
    expect(failure(`correct horse battery staple 1: ${"🐴".repeat(100)}`, policy)).toBeUndefined();
  });

  it("lists every reason, in GoTrue's words", () => {
    const error = failure("A1", policy);
    expect(error?.code).toBe("weak_password");
    expect(error?.details).toEqual({ reasons: ["length", "characters"] });
    expect(error?.message).toBe(
      "Password should be at least 8 characters. Password should contain at least one character of each: abcdefghijklmnopqrstuvwxyz, 0123456789, :.",
    );
  });

  it("counts characters, not bytes", () => {
    expect(failure("ééééééé1:", { minLength: 9, requiredCharacters: [] })).toBeUndefined();
    expect(failure("🐴🐴🐴🐴🐴", { minLength: 6, requiredCharacters: [] })?.code).toBe("weak_password");
  });

  it("refuses a password with an unpaired surrogate, which no hasher could verify exactly", () => {
    expect(failure("abc\ud800defg", { minLength: 6, requiredCharacters: [] })?.code).toBe("validation_failed");
    expect(failure("abc\ud83d\udc34defg", { minLength: 6, requiredCharacters: [] })).toBeUndefined();
  });

  it("refuses an over-long password before anything hashes it", () => {
    expect(failure("x".repeat(MAX_PASSWORD_LENGTH), { minLength: 6, requiredCharacters: [] })).toBeUndefined();
    expect(failure("x".repeat(MAX_PASSWORD_LENGTH + 1), { minLength: 6, requiredCharacters: [] })?.code).toBe(
      "validation_failed",
    );
  });
});
