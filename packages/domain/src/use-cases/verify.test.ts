import { describe, expect, it } from "vitest";
import { MAX_FAILED_ATTEMPTS } from "../model/one-time-token.ts";
import { aUser } from "../testing/builders.ts";
import { createTestAuth, type TestAuthOptions } from "../testing/create-test-auth.ts";
import { context, failsWith } from "../testing/fails-with.ts";

const password = "secret-password";
const challenge = { codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", codeChallengeMethod: "s256" };
const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

async function signedUp(options: TestAuthOptions = {}, extra: { codeChallenge?: string; codeChallengeMethod?: string } = {}) {
  const testAuth = createTestAuth(options);
  const result = await testAuth.auth.signUp({ email: "ada@example.com", password, ...extra, context });
  const mail = (await testAuth.lastEmail("ada@example.com", "confirmation"))!;
  return { ...testAuth, user: result.kind === "user" ? result.user : undefined!, mail };
}

describe("verifying a signup confirmation", () => {
  it("by the link's token: confirms the address and signs in", async () => {
    const { auth, mail, stores, user } = await signedUp();
    const result = await auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context });
    expect(result.kind).toBe("session");
    if (result.kind !== "session") return;
    expect(result.grant.user.emailConfirmedAt).toBeInstanceOf(Date);
    expect(result.grant.user.userMetadata).toMatchObject({ email_verified: true });
    expect(result.grant.session.amr[0]?.method).toBe("email/signup");
    expect((await stores.users.findById(user.id))?.emailConfirmedAt).toBeInstanceOf(Date);
  });

  it("by the code typed from the mail, with the address, in any case", async () => {
    const { auth, mail } = await signedUp();
    const result = await auth.verify({ type: "signup", proof: { email: "ADA@example.com", code: mail.otp }, followedLink: false, context });
    expect(result.kind).toBe("session");
  });

  it("works once", async () => {
    const { auth, mail } = await signedUp();
    await auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context });
    await failsWith("otp_expired", auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context }));
    await failsWith("otp_expired", auth.verify({ type: "signup", proof: { email: "ada@example.com", code: mail.otp }, followedLink: false, context }));
  });

  it("works only for its own type: a signup token confirms nothing as a recovery or an email change", async () => {
    const { auth, mail } = await signedUp();
    for (const type of ["recovery", "magiclink", "email_change", "invite"] as const) {
      await failsWith("otp_expired", auth.verify({ type, proof: { linkToken: mail.linkToken }, followedLink: true, context }));
    }
    expect((await auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context })).kind).toBe("session");
  });

  it("expires after MAILER_OTP_EXP", async () => {
    const { auth, mail, clock } = await signedUp({ policy: { otp: { emailOtpExpSeconds: 600 } } });
    clock.advance({ seconds: 600 });
    const error = await failsWith("otp_expired", auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context }));
    expect(error.message).toBe("Email link is invalid or has expired");
  });

  it("is replaced by a newer one", async () => {
    const { auth, mail, clock, lastEmail } = await signedUp();
    clock.advance({ seconds: 901 });
    await auth.signUp({ email: "ada@example.com", password, context });
    const newer = (await lastEmail("ada@example.com", "confirmation"))!;
    expect(newer.linkToken).not.toBe(mail.linkToken);
    await failsWith("otp_expired", auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context }));
    expect((await auth.verify({ type: "signup", proof: { linkToken: newer.linkToken }, followedLink: true, context })).kind).toBe("session");
  });

  it("survives only so many wrong codes, and counts them although each request fails", async () => {
    const { auth, mail } = await signedUp();
    const wrong = mail.otp === "000000" ? "111111" : "000000";
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) {
      await failsWith("otp_expired", auth.verify({ type: "signup", proof: { email: "ada@example.com", code: wrong }, followedLink: false, context }));
    }
    // The right code comes too late: the token is gone.
    await failsWith("otp_expired", auth.verify({ type: "signup", proof: { email: "ada@example.com", code: mail.otp }, followedLink: false, context }));
  });

  it("refuses a banned user, and leaves the token for when the ban ends", async () => {
    const { auth, mail, stores, user } = await signedUp();
    await stores.users.update({ ...(await stores.users.findById(user.id))!, bannedUntil: new Date("2099-01-01T00:00:00Z") });
    await failsWith("user_banned", auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context }));
    await stores.users.update({ ...(await stores.users.findById(user.id))!, bannedUntil: null });
    expect((await auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context })).kind).toBe("session");
  });
});

describe("the types a code is verified as", () => {
  it("take an invitation's code as a signup's, and a recovery's as a sign-in mail's (type email), as GoTrue does", async () => {
    const { auth, lastEmail, stores } = createTestAuth();
    const admin = { role: "service_role", userId: null, claims: {} };
    await auth.inviteUser({ admin, email: "invitee@example.com", context });
    const invite = (await lastEmail("invitee@example.com", "invite"))!;
    const accepted = await auth.verify({ type: "signup", proof: { email: "invitee@example.com", code: invite.otp }, followedLink: false, password, context });
    expect(accepted.kind).toBe("session");

    await stores.users.insert(aUser({ email: "lost@example.com" }));
    await auth.recoverPassword({ email: "lost@example.com", context });
    const recovery = (await lastEmail("lost@example.com", "recovery"))!;
    const signedIn = await auth.verify({ type: "email", proof: { email: "lost@example.com", code: recovery.otp }, followedLink: false, context });
    expect(signedIn.kind === "session" && signedIn.grant.session.amr[0]?.method).toBe("recovery");
  });
});

describe("a signup verification on an account without a password", () => {
  async function passwordless() {
    const testAuth = createTestAuth();
    await testAuth.auth.sendMagicLink({ email: "nopass@example.com", createUser: true, context });
    const mail = (await testAuth.lastEmail("nopass@example.com", "confirmation"))!;
    return { ...testAuth, mail };
  }

  it("requires a password when posted as a signup, keeping the token for the retry", async () => {
    const { auth, mail } = await passwordless();
    const proof = { email: "nopass@example.com", code: mail.otp };
    await failsWith("validation_failed", auth.verify({ type: "signup", proof, followedLink: false, context }));
    const result = await auth.verify({ type: "signup", proof, followedLink: false, password: "chosen-at-last", context });
    expect(result.kind).toBe("session");
    expect((await auth.signInWithPassword({ email: "nopass@example.com", password: "chosen-at-last", context })).user.email).toBe("nopass@example.com");
  });

  it("needs none when the link is followed, or when the code is verified as a sign-in (type email)", async () => {
    const { auth, mail } = await passwordless();
    expect((await auth.verify({ type: "email", proof: { email: "nopass@example.com", code: mail.otp }, followedLink: false, context })).kind).toBe("session");
  });
});

describe("PKCE links", () => {
  it("lead a followed link to a code that only the verifier exchanges, once", async () => {
    const { auth, mail } = await signedUp({}, challenge);
    expect(mail.linkToken.startsWith("pkce_")).toBe(true);
    const result = await auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context });
    expect(result.kind).toBe("auth_code");
    if (result.kind !== "auth_code") return;
    const grant = await auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context });
    expect(grant.user.email).toBe("ada@example.com");
    expect(grant.session.amr[0]?.method).toBe("email/signup");
    await failsWith("flow_state_not_found", auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context }));
  });

  it("exchange nothing for a user soft-deleted after the link was followed", async () => {
    const { auth, mail, user } = await signedUp({}, challenge);
    const result = await auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context });
    if (result.kind !== "auth_code") throw new Error(`expected a code, got ${result.kind}`);
    await auth.admin.deleteUser({ admin: { role: "service_role", userId: null, claims: {} }, userId: user.id, softDelete: true, context });
    await failsWith("flow_state_not_found", auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context }));
  });

  it("cannot be used to skip the verifier: posting the link's token yields nothing", async () => {
    const { auth, mail } = await signedUp({}, challenge);
    await failsWith("validation_failed", auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: false, context }));
  });

  it("burn a code tried with the wrong verifier, and refuse one exchanged too late", async () => {
    const first = await signedUp({}, challenge);
    const code = await first.auth.verify({ type: "signup", proof: { linkToken: first.mail.linkToken }, followedLink: true, context });
    if (code.kind !== "auth_code") throw new Error("expected a code");
    await failsWith("bad_code_verifier", first.auth.exchangeAuthCode({ authCode: code.authCode, codeVerifier: `${verifier.slice(0, -1)}x`, context }));
    await failsWith("flow_state_not_found", first.auth.exchangeAuthCode({ authCode: code.authCode, codeVerifier: verifier, context }));

    const late = await signedUp({}, challenge);
    const lateCode = await late.auth.verify({ type: "signup", proof: { linkToken: late.mail.linkToken }, followedLink: true, context });
    if (lateCode.kind !== "auth_code") throw new Error("expected a code");
    late.clock.advance({ seconds: 300 });
    await failsWith("flow_state_expired", late.auth.exchangeAuthCode({ authCode: lateCode.authCode, codeVerifier: verifier, context }));
  });

  it("accept the code typed from the mail directly: it proves the mailbox in the same app", async () => {
    const { auth, mail } = await signedUp({}, challenge);
    expect((await auth.verify({ type: "signup", proof: { email: "ada@example.com", code: mail.otp }, followedLink: false, context })).kind).toBe("session");
  });

  it("refuse empty and unknown codes", async () => {
    const { auth } = createTestAuth();
    await failsWith("validation_failed", auth.exchangeAuthCode({ authCode: "", codeVerifier: verifier, context }));
    await failsWith("flow_state_not_found", auth.exchangeAuthCode({ authCode: "no-such-code", codeVerifier: verifier, context }));
  });
});

describe("secure email change", () => {
  async function changing(options: TestAuthOptions = {}) {
    const testAuth = createTestAuth(options);
    const user = aUser({ email: "old@example.com", passwordHash: await testAuth.hasher.hash(password) });
    await testAuth.stores.users.insert(user);
    const grant = await testAuth.auth.signInWithPassword({ email: "old@example.com", password, context });
    const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
    const updated = await testAuth.auth.updateUser({ principal, email: "new@example.com", context });
    return { ...testAuth, user, updated };
  }

  it("mails both addresses and completes only once both confirmed, in either order", async () => {
    const { auth, lastEmail, stores, user, updated } = await changing();
    expect(updated).toMatchObject({ email: "old@example.com", newEmail: "new@example.com" });
    expect(updated.emailChangeSentAt).toBeInstanceOf(Date);
    const toNew = (await lastEmail("new@example.com", "email_change"))!;
    const toOld = (await lastEmail("old@example.com", "email_change"))!;
    expect(toNew).toMatchObject({ email: "old@example.com", newEmail: "new@example.com", linkType: "email_change" });

    const first = await auth.verify({ type: "email_change", proof: { linkToken: toOld.linkToken }, followedLink: true, context });
    expect(first.kind).toBe("awaiting_other_address");
    expect((await stores.users.findById(user.id))?.email).toBe("old@example.com");

    const second = await auth.verify({ type: "email_change", proof: { email: "new@example.com", code: toNew.otp }, followedLink: false, context });
    expect(second.kind).toBe("session");
    const changed = (await stores.users.findById(user.id))!;
    expect(changed).toMatchObject({ email: "new@example.com", newEmail: null });
    expect(changed.identities.find((identity) => identity.provider === "email")?.identityData).toMatchObject({ email: "new@example.com" });
    expect((await auth.signInWithPassword({ email: "new@example.com", password, context })).user.id).toBe(user.id);
  });

  it("is mailed to both addresses even with MAILER_AUTOCONFIRM", async () => {
    const { lastEmail } = await changing({ policy: { signup: { emailAutoconfirm: true } } });
    expect(await lastEmail("old@example.com", "email_change")).toBeDefined();
    expect(await lastEmail("new@example.com", "email_change")).toBeDefined();
  });

  it("needs only the new address when secure email change is off, and notifies the old one when asked to", async () => {
    const { auth, lastEmail, emails } = await changing({ policy: { email: { secureEmailChange: false, notifications: { emailChanged: true } } } });
    expect(await lastEmail("old@example.com", "email_change")).toBeUndefined();
    const toNew = (await lastEmail("new@example.com", "email_change"))!;
    expect((await auth.verify({ type: "email_change", proof: { linkToken: toNew.linkToken }, followedLink: true, context })).kind).toBe("session");
    expect((await emails()).filter((mail) => mail.kind === "email_changed")).toEqual([
      { kind: "email_changed", to: "old@example.com", email: "new@example.com", oldEmail: "old@example.com" },
    ]);
  });

  it("leads PKCE links to a code once both addresses confirmed, and only the verifier exchanges it", async () => {
    const testAuth = createTestAuth();
    await testAuth.stores.users.insert(aUser({ email: "old@example.com", passwordHash: await testAuth.hasher.hash(password) }));
    const grant = await testAuth.auth.signInWithPassword({ email: "old@example.com", password, context });
    const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
    await testAuth.auth.updateUser({ principal, email: "new@example.com", ...challenge, context });
    const [toOld, toNew] = [(await testAuth.lastEmail("old@example.com", "email_change"))!, (await testAuth.lastEmail("new@example.com", "email_change"))!];
    expect([toOld.linkToken, toNew.linkToken].every((token) => token.startsWith("pkce_"))).toBe(true);

    const follow = (linkToken: string) => testAuth.auth.verify({ type: "email_change", proof: { linkToken }, followedLink: true, context });
    expect((await follow(toOld.linkToken)).kind).toBe("awaiting_other_address");
    const result = await follow(toNew.linkToken);
    if (result.kind !== "auth_code") throw new Error("expected a code");
    const exchanged = await testAuth.auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context });
    expect(exchanged.user.email).toBe("new@example.com");
  });

  it("takes an address someone signed up with and never confirmed from them, once its owner proves it", async () => {
    const testAuth = await changing({ policy: { email: { secureEmailChange: false } } });
    // The squatter signs up after the change was asked for; the owner's confirmation still wins.
    await testAuth.auth.signUp({ email: "new@example.com", password: "squatting", context });
    const squatter = (await testAuth.stores.users.findByEmail("new@example.com"))!;
    const toNew = (await testAuth.lastEmail("new@example.com", "email_change"))!;
    await testAuth.auth.verify({ type: "email_change", proof: { linkToken: toNew.linkToken }, followedLink: true, context });
    expect((await testAuth.stores.users.findByEmail("new@example.com"))?.id).toBe(testAuth.user.id);
    expect((await testAuth.stores.users.findById(squatter.id))?.email).toBeNull();
  });

  it("makes an anonymous user permanent once its first address is confirmed", async () => {
    const { auth, lastEmail, stores } = createTestAuth({ policy: { signup: { anonymousEnabled: true } } });
    const anonymous = await auth.signUp({ context });
    if (anonymous.kind !== "session") throw new Error("expected a session");
    const principal = await auth.authenticate({ accessToken: anonymous.grant.accessToken });
    await auth.updateUser({ principal, email: "kept@example.com", context });
    const toNew = (await lastEmail("kept@example.com", "email_change"))!;
    const result = await auth.verify({ type: "email_change", proof: { linkToken: toNew.linkToken }, followedLink: true, context });
    expect(result.kind === "session" && result.grant.user).toMatchObject({ email: "kept@example.com", isAnonymous: false });
    expect((await stores.users.findById(principal.user.id))?.isAnonymous).toBe(false);
  });
});
