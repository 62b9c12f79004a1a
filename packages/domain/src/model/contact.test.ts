import { describe, expect, it } from "vitest";
import { isAuthError } from "../errors.ts";
import { normalizeEmail } from "./email.ts";
import { normalizePhone } from "./phone.ts";

const refuses = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return isAuthError(error, "validation_failed");
  }
  return false;
};

describe("email addresses", () => {
  it("are lower-cased so that they compare case-insensitively", () => {
    expect(normalizeEmail("User@Example.COM")).toBe("user@example.com");
    expect(normalizeEmail("a.b+tag@sub.example.org")).toBe("a.b+tag@sub.example.org");
  });

  it.each(["", "plain", "a@", "@b.com", "a b@c.com", "a@b..com", "a@-b.com", `${"x".repeat(250)}@b.com`, "a@b.com\n"])(
    "refuses %j",
    (raw) => expect(refuses(() => normalizeEmail(raw))).toBe(true),
  );
});

describe("phone numbers", () => {
  it("become E.164 with a plus, from input with or without it, spaces and dashes", () => {
    expect(normalizePhone("+1 555-010-9999")).toBe("+15550109999");
    expect(normalizePhone("15550109999")).toBe("+15550109999");
    expect(normalizePhone(" 44 20 7946 0958 ")).toBe("+442079460958");
  });

  it.each([
    "",
    "+",
    "0123456",
    "12345",
    "123456",
    "1234567890123456",
    "+1 (555) 010",
    "+1555abc",
    "++15550109999",
    "1",
  ])("refuses %j", (raw) => expect(refuses(() => normalizePhone(raw))).toBe(true));
});
