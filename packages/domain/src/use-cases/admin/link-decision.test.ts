import { describe, expect, it } from "vitest";
import { aUser } from "../../testing/builders.ts";
import { decideLink } from "./link-decision.ts";

const pending = aUser({ emailConfirmedAt: null });
const confirmed = { ...pending, emailConfirmedAt: new Date("2024-01-01T00:00:00Z") };
const issue = (type: string, more = {}) => ({ kind: "issue", type, hashPassword: false, emailChange: false, ...more });
const refuse = (reason: string) => ({ kind: "refuse", reason });
const ask = { password: undefined, secureEmailChange: true };

describe("which link an admin gets", () => {
  it.each([
    ["a signup, for a magic link to an unknown address", { requested: "magiclink", existing: null }, issue("signup")],
    ["a magic link to an account", { requested: "magiclink", existing: confirmed }, issue("magiclink")],
    ["a recovery link to an account", { requested: "recovery", existing: confirmed }, issue("recovery")],
    [
      "none, for a recovery link to an unknown address",
      { requested: "recovery", existing: null },
      refuse("user_not_found"),
    ],
    [
      "none, for an email change of an unknown address",
      { requested: "email_change_new", existing: null },
      refuse("user_not_found"),
    ],
    [
      "an email change link",
      { requested: "email_change_new", existing: confirmed },
      issue("email_change_new", { emailChange: true }),
    ],
    [
      "an email change link for the current address, with secure email change",
      { requested: "email_change_current", existing: confirmed },
      issue("email_change_current", { emailChange: true }),
    ],
    [
      "none for the current address without secure email change",
      { requested: "email_change_current", existing: confirmed, secureEmailChange: false },
      refuse("secure_email_change_off"),
    ],
    ["none, for a signup of a confirmed account", { requested: "signup", existing: confirmed }, refuse("email_exists")],
    [
      "none, for an invitation of a confirmed account",
      { requested: "invite", existing: confirmed },
      refuse("email_exists"),
    ],
    ["an invitation of an unconfirmed account", { requested: "invite", existing: pending }, issue("invite")],
    [
      "none, for a new account's signup without a password",
      { requested: "signup", existing: null },
      refuse("password_required"),
    ],
    [
      "none, for a new account's signup with an empty password",
      { requested: "signup", existing: null, password: "" },
      refuse("password_required"),
    ],
    [
      "a new account's signup, its password hashed",
      { requested: "signup", existing: null, password: "s3cret" },
      issue("signup", { hashPassword: true }),
    ],
    [
      "an unconfirmed account's signup again, without a password",
      { requested: "signup", existing: pending },
      issue("signup"),
    ],
    [
      "an unconfirmed account's signup again, with a new password",
      { requested: "signup", existing: pending, password: "s3cret" },
      issue("signup", { hashPassword: true }),
    ],
  ] as const)("is %s", (_, request, expected) => {
    expect(decideLink({ ...ask, ...request })).toEqual(expected);
  });
});
