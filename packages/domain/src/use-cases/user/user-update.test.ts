import { describe, expect, it } from "vitest";
import type { Factor } from "../../model/factor.ts";
import { aUser } from "../../testing/builders.ts";
import { decideUserUpdate } from "./user-update.ts";

const caller = aUser({ email: "ada@example.com", phone: "15550001111" });
const verifiedFactor = { status: "verified" } as Factor;
const withMfa = { ...caller, factors: [verifiedFactor] };
const none = {
  caller,
  aal: "aal1" as const,
  email: undefined,
  phone: undefined,
  password: false,
  phoneAutoconfirm: false,
};
const update = { kind: "update", email: null, phone: null, password: false, lacksAal2: false, sendsPhoneCode: false };

describe("what PUT /user changes", () => {
  it.each([
    ["nothing, for metadata alone", {}, update],
    ["no address, when it is the account's already", { email: "ada@example.com", phone: "15550001111" }, update],
    ["the address, pending", { email: "new@example.com" }, { ...update, email: "new@example.com" }],
    [
      "the number, with a code sent",
      { phone: "15550002222" },
      { ...update, phone: "15550002222", sendsPhoneCode: true },
    ],
    [
      "the number at once under SMS_AUTOCONFIRM",
      { phone: "15550002222", phoneAutoconfirm: true },
      { ...update, phone: "15550002222" },
    ],
    ["the password", { password: true }, { ...update, password: true }],
    [
      "nothing without aal2 when a verified factor guards the account and the password changes",
      { caller: withMfa, password: true },
      { ...update, password: true, lacksAal2: true },
    ],
    [
      "nothing without aal2 when a verified factor guards the account and the address changes",
      { caller: withMfa, email: "new@example.com" },
      { ...update, email: "new@example.com", lacksAal2: true },
    ],
    [
      "what an aal2 session asks, though a verified factor guards the account",
      { caller: withMfa, aal: "aal2" as const, password: true },
      { ...update, password: true },
    ],
    ["metadata without aal2 though a verified factor guards the account", { caller: withMfa }, update],
    [
      "nothing without aal2 for a caller without a session, when a verified factor guards the account",
      { caller: withMfa, aal: null, password: true },
      { ...update, password: true, lacksAal2: true },
    ],
    [
      "nothing for an anonymous user's password without an address",
      { caller: { ...caller, isAnonymous: true }, password: true },
      { kind: "refuse_password_without_address" },
    ],
    [
      "an anonymous user's password with an address",
      { caller: { ...caller, isAnonymous: true }, password: true, email: "new@example.com" },
      { ...update, password: true, email: "new@example.com" },
    ],
  ] as const)("is %s", (_, change, expected) => {
    expect(decideUserUpdate({ ...none, ...change })).toEqual(expected);
  });
});
