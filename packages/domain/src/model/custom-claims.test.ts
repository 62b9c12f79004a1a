import { describe, expect, it } from "vitest";
import { isAuthError } from "../errors.ts";
import { checkedCustomClaims } from "./custom-claims.ts";

const valid = {
  aud: "authenticated",
  exp: 1_900_000_000,
  iat: 1_899_996_400,
  sub: "3f0c1d5e-6a7b-4c8d-9e0f-1a2b3c4d5e6f",
  email: "ada@example.com",
  phone: "",
  role: "authenticated",
  aal: "aal1",
  session_id: "8a2c4a1e-0f6b-4a51-9d38-5f1c2f1f7d10",
  is_anonymous: false,
};

function messageOf(claims: unknown): string {
  try {
    checkedCustomClaims(claims);
  } catch (error) {
    expect(isAuthError(error, "unexpected_failure")).toBe(true);
    return (error as Error).message;
  }
  return "accepted";
}

describe("the claims a custom_access_token hook answers (GoTrue's minimum viable token)", () => {
  it("accepts the required claims, with any others, and an array audience", () => {
    expect(checkedCustomClaims({ ...valid, user_role: "admin", aud: ["a", "b"], amr: ["password"] })).toMatchObject({
      user_role: "admin",
    });
    expect(messageOf({ ...valid, amr: [{ method: "password", timestamp: 1 }] })).toBe("accepted");
  });

  it.each([
    ["a required claim missing", { ...valid, aal: undefined }, "- (root): aal is required\n"],
    ["a time that is no integer", { ...valid, exp: "soon" }, "- exp: Invalid type. Expected: integer, given: string\n"],
    ["a fractional time", { ...valid, iat: 1.5 }, "- iat: Invalid type. Expected: integer, given: number\n"],
    [
      "metadata that is no object",
      { ...valid, app_metadata: [] },
      "- app_metadata: Invalid type. Expected: object, given: array\n",
    ],
    ["an amr entry of another type", { ...valid, amr: [1] }, "- amr.0: Must validate at least one schema (anyOf)\n"],
    ["no object at all", null, "- (root): Invalid type. Expected: object, given: null\n"],
  ])("refuses %s, in GoTrue's words", (_case, claims, problem) => {
    const stripped = claims && Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined));
    expect(messageOf(stripped)).toBe(`output claims do not conform to the expected schema: \n${problem}`);
  });
});
