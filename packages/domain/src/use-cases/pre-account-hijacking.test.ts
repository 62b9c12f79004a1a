import { describe, expect, it } from "vitest";
import { aSession } from "../testing/builders.ts";
import { createTestAuth, type TestAuth } from "../testing/create-test-auth.ts";
import { context, failsWith } from "../testing/fails-with.ts";

// Someone signs up with an address they do not own, hoping its owner will later prove the mailbox and so confirm
// an account whose password they know. Whoever proves the address must end up with an account only they can use.

const victim = "victim@example.com";
const attackersPassword = "attacker-knows-this";
const ownersPassword = "owner-chose-this";
const admin = { role: "service_role", userId: null, claims: {} };

async function signedUpByAttacker(): Promise<TestAuth & { userId: string }> {
  const testAuth = createTestAuth();
  const result = await testAuth.auth.signUp({ email: victim, password: attackersPassword, context });
  if (result.kind !== "user") throw new Error("expected an account awaiting confirmation");
  // The attacker's confirmation mail goes to the owner, who ignores it; whatever the owner does next comes later.
  testAuth.clock.advance({ seconds: 3600 });
  return { ...testAuth, userId: result.user.id };
}

async function followLatestMail(testAuth: TestAuth, kind: "confirmation" | "magic_link" | "invite" | "recovery") {
  const mail = (await testAuth.lastEmail(victim, kind))!;
  const type = { confirmation: "signup", magic_link: "magiclink", invite: "invite", recovery: "recovery" } as const;
  const result = await testAuth.auth.verify({
    type: type[kind],
    proof: { linkToken: mail.linkToken },
    followedLink: true,
    context,
  });
  if (result.kind !== "session") throw new Error("expected a session");
  return result.grant;
}

async function expectPasswordRefused(testAuth: TestAuth, password: string) {
  await failsWith("invalid_credentials", testAuth.auth.signInWithPassword({ email: victim, password, context }));
}

describe("an account someone else signed up for the address", () => {
  it("loses that password when its owner signs up too and confirms: two different choices leave none", async () => {
    const testAuth = await signedUpByAttacker();
    await testAuth.auth.signUp({ email: victim, password: ownersPassword, context });
    const grant = await followLatestMail(testAuth, "confirmation");
    expect(grant.user.id).toBe(testAuth.userId);
    expect(grant.user.passwordHash).toBeNull();
    await expectPasswordRefused(testAuth, attackersPassword);
  });

  it("loses that password when its owner signs in by magic link instead", async () => {
    const testAuth = await signedUpByAttacker();
    await testAuth.auth.sendMagicLink({ email: victim, createUser: true, context });
    const grant = await followLatestMail(testAuth, "confirmation");
    expect(grant.user.emailConfirmedAt).toBeInstanceOf(Date);
    expect(grant.user.passwordHash).toBeNull();
    await expectPasswordRefused(testAuth, attackersPassword);
  });

  it("loses that password when an admin invites the owner, who accepts", async () => {
    const testAuth = await signedUpByAttacker();
    await testAuth.auth.inviteUser({ admin, email: victim, context });
    expect((await followLatestMail(testAuth, "invite")).user.passwordHash).toBeNull();
    await expectPasswordRefused(testAuth, attackersPassword);
  });

  it("loses that password when its owner recovers the account, and takes the one the owner then sets", async () => {
    const testAuth = await signedUpByAttacker();
    await testAuth.auth.recoverPassword({ email: victim, context });
    const grant = await followLatestMail(testAuth, "recovery");
    await expectPasswordRefused(testAuth, attackersPassword);
    const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
    await testAuth.auth.updateUser({ principal, password: ownersPassword, context });
    await testAuth.auth.signInWithPassword({ email: victim, password: ownersPassword, context });
  });

  it("is rid of the sessions opened before anything was proven", async () => {
    const testAuth = await signedUpByAttacker();
    const early = aSession(testAuth.userId);
    await testAuth.stores.sessions.open(early, {
      id: crypto.randomUUID(),
      sessionId: early.id,
      parentId: null,
      tokenHash: "early",
      createdAt: early.createdAt,
    });
    await testAuth.auth.sendMagicLink({ email: victim, createUser: true, context });
    const grant = await followLatestMail(testAuth, "confirmation");
    expect((await testAuth.stores.users.findWithSession(testAuth.userId, early.id))?.session).toBeNull();
    expect((await testAuth.stores.users.findWithSession(testAuth.userId, grant.session.id))?.session).not.toBeNull();
  });

  it("takes the password its owner types with the code over the one the attacker's signup carried", async () => {
    const testAuth = await signedUpByAttacker();
    const code = (await testAuth.lastEmail(victim, "confirmation"))!.otp;
    await testAuth.auth.verify({
      type: "signup",
      proof: { email: victim, code },
      followedLink: false,
      password: ownersPassword,
      context,
    });
    await expectPasswordRefused(testAuth, attackersPassword);
  });

  it("cannot get its password back on the token by burning the owner's confirmation and signing up again", async () => {
    const testAuth = await signedUpByAttacker();
    await testAuth.auth.signUp({ email: victim, password: ownersPassword, context });
    for (let guess = 0; guess < 5; guess++) {
      await failsWith(
        "otp_expired",
        testAuth.auth.verify({
          type: "signup",
          proof: { email: victim, code: "000000" },
          followedLink: false,
          context,
        }),
      );
    }
    testAuth.clock.advance({ seconds: 900 });
    await testAuth.auth.signUp({ email: victim, password: attackersPassword, context });
    expect((await followLatestMail(testAuth, "confirmation")).user.passwordHash).toBeNull();
    await expectPasswordRefused(testAuth, attackersPassword);
  });

  it("cannot put its password on an account an admin invited, nor turn the invitation into a signup confirmation", async () => {
    const testAuth = createTestAuth();
    await testAuth.auth.inviteUser({ admin, email: victim, data: { team: "blue" }, context });
    const invited = (await testAuth.stores.users.findByEmail(victim))!;
    const answer = await testAuth.auth.signUp({
      email: victim,
      password: attackersPassword,
      data: { team: "red" },
      context,
    });
    // The answer names the account, as GoTrue's does, and shows nothing the caller did not send.
    expect(answer.kind === "user" && answer.user).toMatchObject({
      id: invited.id,
      invitedAt: null,
      userMetadata: { team: "red" },
    });
    expect(await testAuth.lastEmail(victim, "confirmation")).toBeUndefined();
    const accepted = await followLatestMail(testAuth, "invite");
    expect(accepted.user.passwordHash).toBeNull();
    expect(accepted.user.userMetadata).toMatchObject({ team: "blue" });
    await expectPasswordRefused(testAuth, attackersPassword);
  });

  it("stays the attacker's only if the owner follows a confirmation they did not ask for, as with any account", async () => {
    const testAuth = await signedUpByAttacker();
    const grant = await followLatestMail(testAuth, "confirmation");
    expect(grant.user.passwordHash).not.toBeNull();
  });
});

describe("the data of an account someone else signed up for the address", () => {
  const attackersData = { display_name: "Pay attacker@example.net", plan: "forged" };

  it("is not the account's while nobody proved the address, and its owner proving it some other way never gets it", async () => {
    for (const first of ["signup", "otp"] as const) {
      const testAuth = createTestAuth();
      if (first === "signup")
        await testAuth.auth.signUp({ email: victim, password: attackersPassword, data: attackersData, context });
      else await testAuth.auth.sendMagicLink({ email: victim, createUser: true, data: attackersData, context });
      const pending = (await testAuth.stores.users.findByEmail(victim))!;
      expect(pending.userMetadata).not.toHaveProperty("plan");
      expect(pending.identities[0]?.identityData).not.toHaveProperty("plan");
      testAuth.clock.advance({ seconds: 3600 });
      // The owner signs in by magic link; the confirmation it sends carries nothing the attacker chose.
      await testAuth.auth.sendMagicLink({ email: victim, createUser: true, context });
      const grant = await followLatestMail(testAuth, "confirmation");
      expect(grant.user.userMetadata).not.toHaveProperty("plan");
      expect(grant.user.userMetadata).not.toHaveProperty("display_name");
      expect(grant.user.identities[0]?.identityData).not.toHaveProperty("plan");
    }
  });

  it("is lost when the owner signs up too, with data of their own, or recovers the account", async () => {
    const testAuth = await signedUpByAttacker();
    await testAuth.auth.signUp({ email: victim, password: ownersPassword, data: { display_name: "Owner" }, context });
    const grant = await followLatestMail(testAuth, "confirmation");
    // Two different parties asked: neither one's choices are kept.
    expect(grant.user.userMetadata).not.toHaveProperty("plan");
    expect(grant.user.userMetadata).not.toHaveProperty("display_name");

    const recovered = createTestAuth();
    await recovered.auth.signUp({ email: victim, password: attackersPassword, data: attackersData, context });
    await recovered.auth.recoverPassword({ email: victim, context });
    expect((await followLatestMail(recovered, "recovery")).user.userMetadata).not.toHaveProperty("plan");
  });

  it("is kept, as the password is, when whoever proves the address follows the mail of the signup that chose it", async () => {
    const { auth, lastEmail } = createTestAuth();
    await auth.signUp({ email: victim, password: ownersPassword, data: { display_name: "Owner" }, context });
    const mail = (await lastEmail(victim, "confirmation"))!;
    expect(mail.data).toMatchObject({ display_name: "Owner" });
    const result = await auth.verify({
      type: "signup",
      proof: { linkToken: mail.linkToken },
      followedLink: true,
      context,
    });
    expect(result.kind === "session" && result.grant.user.userMetadata).toMatchObject({
      display_name: "Owner",
      email_verified: true,
    });
    const identity = result.kind === "session" ? result.grant.user.identities[0] : undefined;
    expect(identity?.identityData).toMatchObject({ display_name: "Owner", email: victim });
  });

  it("survives the same party asking again: a repeated signup with the same password, a resend, an /otp with the same data", async () => {
    const { auth, clock, lastEmail } = createTestAuth();
    await auth.signUp({ email: victim, password: ownersPassword, data: { display_name: "Owner" }, context });
    clock.advance({ seconds: 900 });
    await auth.signUp({ email: victim, password: ownersPassword, data: { display_name: "Owner B." }, context });
    clock.advance({ seconds: 900 });
    await auth.resend({ type: "signup", email: victim, context });
    clock.advance({ seconds: 900 });
    await auth.sendMagicLink({ email: victim, createUser: true, data: { display_name: "Owner B." }, context });
    const mail = (await lastEmail(victim, "confirmation"))!;
    const result = await auth.verify({
      type: "signup",
      proof: { linkToken: mail.linkToken },
      followedLink: true,
      context,
    });
    expect(result.kind === "session" && result.grant.user.userMetadata).toMatchObject({ display_name: "Owner B." });
  });

  it("of an admin is no unproven party's: it stays when the owner proves the address", async () => {
    const testAuth = createTestAuth();
    await testAuth.auth.admin.createUser({ admin, email: victim, userMetadata: { team: "blue" }, context });
    await testAuth.auth.signUp({ email: victim, password: attackersPassword, data: { team: "red" }, context });
    testAuth.clock.advance({ seconds: 3600 });
    await testAuth.auth.sendMagicLink({ email: victim, createUser: true, context });
    expect((await followLatestMail(testAuth, "confirmation")).user.userMetadata).toMatchObject({ team: "blue" });
  });
});

describe("an honest signup", () => {
  it("keeps its password through a resend and a repeated signup with the same password", async () => {
    const { auth, clock, lastEmail } = createTestAuth();
    await auth.signUp({ email: victim, password: ownersPassword, context });
    clock.advance({ seconds: 900 });
    await auth.resend({ type: "signup", email: victim, context });
    clock.advance({ seconds: 900 });
    await auth.signUp({ email: victim, password: ownersPassword, context });
    const mail = (await lastEmail(victim, "confirmation"))!;
    await auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context });
    const signedIn = await auth.signInWithPassword({ email: victim, password: ownersPassword, context });
    expect(signedIn.user.email).toBe(victim);
  });

  it("verified by code: the password typed with it wins, and the official client, typing none, gets in with none", async () => {
    const testAuth = await signedUpByAttacker();
    await testAuth.auth.signUp({ email: victim, password: ownersPassword, context });
    const code = (await testAuth.lastEmail(victim, "confirmation"))!.otp;
    await testAuth.auth.verify({
      type: "signup",
      proof: { email: victim, code },
      followedLink: false,
      password: ownersPassword,
      context,
    });
    await testAuth.auth.signInWithPassword({ email: victim, password: ownersPassword, context });
    await expectPasswordRefused(testAuth, attackersPassword);

    const other = await signedUpByAttacker();
    await other.auth.signUp({ email: victim, password: ownersPassword, context });
    const otherCode = (await other.lastEmail(victim, "confirmation"))!.otp;
    const result = await other.auth.verify({
      type: "signup",
      proof: { email: victim, code: otherCode },
      followedLink: false,
      context,
    });
    expect(result.kind === "session" && result.grant.user.passwordHash).toBeNull();
  });
});
