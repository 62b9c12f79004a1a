import { describe, expect, it } from "vitest";
import { aUser } from "../testing/builders.ts";
import { chooseProviderEmail, decideAccount, decideAddressProof, verifiedAddresses } from "./account-linking.ts";
import type { ProviderEmail } from "./provider-profile.ts";

const email = (address: string, verified: boolean, primary: boolean): ProviderEmail => ({ address, verified, primary });

describe("the address a provider sign-in goes by", () => {
  it("is the first one marked primary", () => {
    const emails = [
      email("a@example.com", true, false),
      email("b@example.com", false, true),
      email("c@example.com", true, true),
    ];
    expect(chooseProviderEmail(emails)?.address).toBe("b@example.com");
  });

  it("is the last one when none is primary (GoTrue's choice)", () => {
    const emails = [email("a@example.com", true, false), email("b@example.com", false, false)];
    expect(chooseProviderEmail(emails)?.address).toBe("b@example.com");
  });

  it("is none when the provider reports none", () => {
    expect(chooseProviderEmail([])).toBeNull();
  });
});

describe("the addresses that prove who signed in", () => {
  const emails = [
    email("Ada@Example.com", true, true),
    email("ada@work.example", false, false),
    email("ADA@example.com", true, false),
  ];

  it("are those the provider verified, lower-cased, each once", () => {
    expect(verifiedAddresses(emails, false)).toEqual(["ada@example.com"]);
  });

  it("are all of them when email sign-ups need no confirmation (MAILER_AUTOCONFIRM)", () => {
    expect(verifiedAddresses(emails, true)).toEqual(["ada@example.com", "ada@work.example"]);
  });

  it("are none when the provider verified none", () => {
    expect(verifiedAddresses([email("ada@example.com", false, true)], false)).toEqual([]);
  });
});

describe("who a provider sign-in is", () => {
  const owner = aUser({ email: "owner@example.com" });
  const holder = aUser({ email: "ada@example.com" });
  const other = aUser({ email: "other@example.com" });
  const none = { identityOwner: null, candidate: null, verified: [], holders: [], candidateTaken: false };

  it("is the owner of the identity, whatever the addresses say", () => {
    expect(
      decideAccount({
        ...none,
        identityOwner: owner,
        candidate: "ada@example.com",
        verified: ["ada@example.com"],
        holders: [holder, other],
        candidateTaken: true,
      }),
    ).toEqual({ kind: "sign_in", user: owner });
  });

  it("is the one account holding a verified address: the identity joins it", () => {
    expect(
      decideAccount({
        ...none,
        candidate: "ada@example.com",
        verified: ["ada@example.com"],
        holders: [holder],
        candidateTaken: true,
      }),
    ).toEqual({ kind: "link", user: holder });
  });

  it("is that one account also when it holds several of the addresses (found once per address)", () => {
    expect(
      decideAccount({
        ...none,
        candidate: "ada@example.com",
        verified: ["ada@example.com", "ada@work.example"],
        holders: [holder, { ...holder }],
        candidateTaken: true,
      }),
    ).toEqual({ kind: "link", user: holder });
  });

  it("cannot be told when several accounts hold the verified addresses", () => {
    expect(
      decideAccount({
        ...none,
        candidate: "ada@example.com",
        verified: ["ada@example.com", "other@example.com"],
        holders: [holder, other],
        candidateTaken: true,
      }),
    ).toEqual({ kind: "multiple_accounts" });
  });

  it("is a new account with the address when nobody holds it", () => {
    expect(
      decideAccount({ ...none, candidate: "ada@example.com", verified: ["ada@example.com"], holders: [] }),
    ).toEqual({ kind: "create", email: "ada@example.com" });
  });

  it("is a new account, never a link, when the provider verified no address, even one an account holds", () => {
    expect(
      decideAccount({ ...none, candidate: "ada@example.com", verified: [], holders: [holder], candidateTaken: true }),
    ).toEqual({ kind: "create", email: null });
    expect(decideAccount({ ...none, candidate: "new@example.com", verified: [], holders: [] })).toEqual({
      kind: "create",
      email: "new@example.com",
    });
  });

  it("is a new account without the address when someone else already has it as their email", () => {
    expect(
      decideAccount({ ...none, candidate: "ada@example.com", verified: ["ada@work.example"], candidateTaken: true }),
    ).toEqual({ kind: "create", email: null });
  });

  it("is a new account without any address when the provider reported none", () => {
    expect(decideAccount(none)).toEqual({ kind: "create", email: null });
  });
});

describe("what a provider sign-in must prove of the account it reached", () => {
  const at = new Date("2024-01-01T00:00:00Z");
  const unconfirmed = { email: "ada@example.com", emailConfirmedAt: null, phoneConfirmedAt: null };
  const base = {
    account: unconfirmed,
    candidate: "ada@example.com",
    emailOptional: false,
    verified: ["ada@example.com"],
    allowUnverifiedSignIns: false,
  };
  it.each([
    [
      "nothing, when the account's email is confirmed",
      { account: { ...unconfirmed, emailConfirmedAt: at } },
      { kind: "none_needed" },
    ],
    [
      "nothing, when the sign-in goes by no address (the provider gave none and need not)",
      { candidate: null, emailOptional: true },
      { kind: "none_needed" },
    ],
    [
      "the address still, when the provider gave none but must",
      { candidate: null, verified: [] },
      { kind: "unproven", takeOver: true, mail: true, signIn: false },
    ],
    [
      "nothing more, when the provider verified the address: the account is taken over and confirmed",
      {},
      { kind: "confirm", takeOver: true },
    ],
    [
      "no takeover when a confirmed phone proves the account its holder's",
      { account: { ...unconfirmed, phoneConfirmedAt: at } },
      { kind: "confirm", takeOver: false },
    ],
    [
      "the address, by mail, when the provider did not verify it",
      { verified: [] },
      { kind: "unproven", takeOver: true, mail: true, signIn: false },
    ],
    [
      "the address, by mail, while signed in, under MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS",
      { verified: [], allowUnverifiedSignIns: true },
      { kind: "unproven", takeOver: true, mail: true, signIn: true },
    ],
    [
      "what cannot be mailed, when the account has no address (another account has it)",
      { account: { ...unconfirmed, email: null } },
      { kind: "unproven", takeOver: true, mail: false, signIn: false },
    ],
  ] as const)("is %s", (_, change, expected) => {
    expect(decideAddressProof({ ...base, ...change })).toEqual(expected);
  });
});
