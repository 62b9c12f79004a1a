import { describe, expect, it } from "vitest";
import { aUser } from "../../testing/builders.ts";
import { decideSignUp } from "./sign-up-decision.ts";

const at = new Date("2024-01-01T00:00:00Z");
const pending = aUser({ emailConfirmedAt: null, phoneConfirmedAt: null, invitedAt: null });
const confirmedEmail = { ...pending, emailConfirmedAt: at };
const confirmedPhone = { ...pending, phoneConfirmedAt: at };
const invited = { ...pending, invitedAt: at };
const email = { provider: "email", autoconfirm: false } as const;
const phone = { provider: "phone", autoconfirm: false } as const;
const auto = { provider: "email", autoconfirm: true } as const;

describe("what a signup with an address does", () => {
  it.each([
    ["signs a new account in where addresses confirm themselves", null, auto, { kind: "create_confirmed" }],
    ["makes a new account await its confirmation", null, phone, { kind: "create_pending" }],
    [
      "refuses a confirmed account where addresses confirm themselves",
      confirmedEmail,
      auto,
      { kind: "already_registered" },
    ],
    ["disguises a confirmed account", confirmedEmail, email, { kind: "disguise_confirmed", user: confirmedEmail }],
    [
      "disguises a confirmed phone's account",
      confirmedPhone,
      phone,
      { kind: "disguise_confirmed", user: confirmedPhone },
    ],
    [
      "looks at the kind of address signed up with",
      confirmedPhone,
      email,
      { kind: "resend_confirmation", user: confirmedPhone },
    ],
    [
      "confirms an unconfirmed account for its owner where addresses confirm themselves",
      pending,
      auto,
      { kind: "confirm_owner", user: pending },
    ],
    [
      "confirms an invited account too where addresses confirm themselves",
      invited,
      auto,
      { kind: "confirm_owner", user: invited },
    ],
    ["disguises an invited account", invited, email, { kind: "disguise_invited", user: invited }],
    [
      "sends an unconfirmed account's confirmation again",
      pending,
      phone,
      { kind: "resend_confirmation", user: pending },
    ],
  ] as const)("%s", (_, existing, kind, expected) => {
    expect(decideSignUp({ existing, ...kind })).toEqual(expected);
  });
});
