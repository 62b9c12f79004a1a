import { describe, expect, it } from "vitest";
import { MAX_FAILED_ATTEMPTS } from "../../model/one-time-token.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";

const password = "secret-password";
const challenge = { codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", codeChallengeMethod: "s256" };
const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

async function signedUp(
  options: TestAuthOptions = {},
  extra: { codeChallenge?: string; codeChallengeMethod?: string } = {},
) {
  const testAuth = createTestAuth(options);
  const result = await testAuth.auth.signUp({ email: "ada@example.com", password, ...extra, context });
  const mail = (await testAuth.lastEmail("ada@example.com", "confirmation"))!;
  return { ...testAuth, user: result.kind === "user" ? result.user : undefined!, mail };
}

describe("verifying a signup confirmation", () => {
  it("by the link's token: confirms the address and signs in", async () => {
    const { auth, mail, stores, user } = await signedUp();
    const result = await auth.verify({
      type: "signup",
      proof: { linkToken: mail.linkToken },
      followedLink: true,
      context,
    });
    expect(result.kind).toBe("session");
    if (result.kind !== "session") return;
    expect(result.grant.user.emailConfirmedAt).toBeInstanceOf(Date);
    expect(result.grant.user.userMetadata).toMatchObject({ email_verified: true });
    expect(result.grant.session.amr[0]?.method).toBe("otp");
    expect((await stores.users.findById(user.id))?.emailConfirmedAt).toBeInstanceOf(Date);
  });

  it("by the code typed from the mail, with the address, in any case", async () => {
    const { auth, mail } = await signedUp();
    const result = await auth.verify({
      type: "signup",
      proof: { email: "ADA@example.com", code: mail.otp },
      followedLink: false,
      context,
    });
    expect(result.kind).toBe("session");
  });

  it("works once", async () => {
    const { auth, mail } = await signedUp();
    await auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context });
    await failsWith(
      "otp_expired",
      auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context }),
    );
    await failsWith(
      "otp_expired",
      auth.verify({
        type: "signup",
        proof: { email: "ada@example.com", code: mail.otp },
        followedLink: false,
        context,
      }),
    );
  });

  it("works only for its own type: a signup token confirms nothing as a recovery or an email change", async () => {
    const { auth, mail } = await signedUp();
    for (const type of ["recovery", "magiclink", "email_change", "invite"] as const) {
      await failsWith(
        "otp_expired",
        auth.verify({ type, proof: { linkToken: mail.linkToken }, followedLink: true, context }),
      );
    }
    expect(
      (await auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context })).kind,
    ).toBe("session");
  });

  it("expires after MAILER_OTP_EXP", async () => {
    const { auth, mail, clock } = await signedUp({ policy: { otp: { emailOtpExpSeconds: 600 } } });
    clock.advance({ seconds: 600 });
    const error = await failsWith(
      "otp_expired",
      auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context }),
    );
    expect(error.message).toBe("Email link is invalid or has expired");
  });

  it("is replaced by a newer one", async () => {
    const { auth, mail, clock, lastEmail } = await signedUp();
    clock.advance({ seconds: 901 });
    await auth.signUp({ email: "ada@example.com", password, context });
    const newer = (await lastEmail("ada@example.com", "confirmation"))!;
    expect(newer.linkToken).not.toBe(mail.linkToken);
    await failsWith(
      "otp_expired",
      auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context }),
    );
    expect(
      (await auth.verify({ type: "signup", proof: { linkToken: newer.linkToken }, followedLink: true, context })).kind,
    ).toBe("session");
  });

  it("takes its code only so many times, counting wrong ones although each request fails; its link still works", async () => {
    const { auth, mail } = await signedUp();
    const wrong = mail.otp === "000000" ? "111111" : "000000";
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) {
      await failsWith(
        "otp_expired",
        auth.verify({ type: "signup", proof: { email: "ada@example.com", code: wrong }, followedLink: false, context }),
      );
    }
    // The right code comes too late, from this client or any other.
    const other = { ip: "192.0.2.1", userAgent: "vitest" };
    await failsWith(
      "otp_expired",
      auth.verify({
        type: "signup",
        proof: { email: "ada@example.com", code: mail.otp },
        followedLink: false,
        context: other,
      }),
    );
    expect(
      (await auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context })).kind,
    ).toBe("session");
  });

  it("refuses a banned user, and leaves the token for when the ban ends", async () => {
    const { auth, mail, stores, user } = await signedUp();
    await stores.users.update({
      ...(await stores.users.findById(user.id))!,
      bannedUntil: new Date("2099-01-01T00:00:00Z"),
    });
    await failsWith(
      "user_banned",
      auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context }),
    );
    await stores.users.update({ ...(await stores.users.findById(user.id))!, bannedUntil: null });
    expect(
      (await auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context })).kind,
    ).toBe("session");
  });
});

describe("wrong codes sent by someone else", () => {
  const stranger = { ip: "198.51.100.66", userAgent: "curl" };
  const owner = { ip: "203.0.113.80", userAgent: "browser" };
  const admin = { role: "service_role", userId: null, claims: {} };
  const wrongFor = (otp: string) => (otp === "000000" ? "111111" : "000000");

  it("never take the owner's mailed link: recovery, magic link, confirmation and invitation all still sign in", async () => {
    const { auth, stores, lastEmail } = createTestAuth();
    await stores.users.insert(aUser({ email: "recovers@example.com" }));
    await stores.users.insert(aUser({ email: "magic@example.com" }));
    await auth.recoverPassword({ email: "recovers@example.com", context: owner });
    await auth.sendMagicLink({ email: "magic@example.com", createUser: false, context: owner });
    await auth.signUp({ email: "confirms@example.com", password, context: owner });
    await auth.inviteUser({ admin, email: "invited@example.com", context: owner });
    const mails = [
      { type: "recovery", mail: (await lastEmail("recovers@example.com", "recovery"))! },
      { type: "magiclink", mail: (await lastEmail("magic@example.com", "magic_link"))! },
      { type: "signup", mail: (await lastEmail("confirms@example.com", "confirmation"))! },
      { type: "invite", mail: (await lastEmail("invited@example.com", "invite"))! },
    ] as const;
    for (const { type, mail } of mails) {
      // A different client for each address, as a distributed guesser would be.
      const from = { ...stranger, ip: `198.51.100.${mails.findIndex((entry) => entry.type === type)}` };
      for (let i = 0; i < MAX_FAILED_ATTEMPTS + 2; i++) {
        await failsWith(
          "otp_expired",
          auth.verify({
            type: "email",
            proof: { email: mail.to, code: wrongFor(mail.otp) },
            followedLink: false,
            context: from,
          }),
        );
      }
      await failsWith(
        "otp_expired",
        auth.verify({ type: "email", proof: { email: mail.to, code: mail.otp }, followedLink: false, context: owner }),
      );
      const followed = await auth.verify({
        type,
        proof: { linkToken: mail.linkToken },
        followedLink: true,
        context: owner,
      });
      expect(followed.kind === "session" && followed.grant.user.email).toBe(mail.to);
    }
  });

  it("count against the client too (RATE_LIMIT_WRONG_CODES): one client cannot kill the codes of address after address", async () => {
    // Not the default, to show the setting is what counts.
    const wrongCodes = { events: 7, perSeconds: 1800 };
    const { auth, lastEmail, clock } = createTestAuth({ policy: { requestLimits: { wrongCodes } } });
    for (const email of ["a@example.com", "b@example.com", "c@example.com"])
      await auth.signUp({ email, password, context: owner });
    const c = (await lastEmail("c@example.com", "confirmation"))!;
    const guess = (email: string, code: string) =>
      auth.verify({ type: "signup", proof: { email, code }, followedLink: false, context: stranger });
    for (let i = 0; i < wrongCodes.events; i++)
      await failsWith("otp_expired", guess(i % 2 === 0 ? "a@example.com" : "b@example.com", "000000"));
    const refused = await failsWith("over_request_rate_limit", guess("c@example.com", wrongFor(c.otp)));
    expect(refused.retryAfterSeconds).toBe(wrongCodes.perSeconds);
    // Refused before anything was looked up: the third address's code was not spent, and works for its owner.
    expect(
      (
        await auth.verify({
          type: "signup",
          proof: { email: "c@example.com", code: c.otp },
          followedLink: false,
          context: owner,
        })
      ).kind,
    ).toBe("session");
    // Links are not codes: the limit does not touch them. And it ends with its window.
    const a = (await lastEmail("a@example.com", "confirmation"))!;
    expect(
      (await auth.verify({ type: "signup", proof: { linkToken: a.linkToken }, followedLink: true, context: stranger }))
        .kind,
    ).toBe("session");
    clock.advance({ seconds: wrongCodes.perSeconds });
    await failsWith("otp_expired", guess("b@example.com", "000000"));
  });

  it("kill a texted code, which has no link, until a new one is asked for", async () => {
    const { auth, lastSms, clock } = createTestAuth({ policy: { signup: { phoneEnabled: true } } });
    await auth.sendSmsOtp({ phone: "+15550104444", createUser: true, context: owner });
    const first = (await lastSms("+15550104444"))!;
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) {
      await failsWith(
        "otp_expired",
        auth.verify({
          type: "sms",
          proof: { phone: "+15550104444", code: wrongFor(first.otp) },
          followedLink: false,
          context: stranger,
        }),
      );
    }
    await failsWith(
      "otp_expired",
      auth.verify({
        type: "sms",
        proof: { phone: "+15550104444", code: first.otp },
        followedLink: false,
        context: owner,
      }),
    );
    clock.advance({ seconds: 60 });
    await auth.sendSmsOtp({ phone: "+15550104444", createUser: true, context: owner });
    const second = (await lastSms("+15550104444"))!;
    expect(
      (
        await auth.verify({
          type: "sms",
          proof: { phone: "+15550104444", code: second.otp },
          followedLink: false,
          context: owner,
        })
      ).kind,
    ).toBe("session");
  });
});

describe("the types a code is verified as", () => {
  it("take an invitation's code as a signup's, and a recovery's as a sign-in mail's (type email), as GoTrue does", async () => {
    const { auth, lastEmail, stores } = createTestAuth();
    const admin = { role: "service_role", userId: null, claims: {} };
    await auth.inviteUser({ admin, email: "invitee@example.com", context });
    const invite = (await lastEmail("invitee@example.com", "invite"))!;
    const accepted = await auth.verify({
      type: "signup",
      proof: { email: "invitee@example.com", code: invite.otp },
      followedLink: false,
      password,
      context,
    });
    expect(accepted.kind).toBe("session");

    await stores.users.insert(aUser({ email: "lost@example.com" }));
    await auth.recoverPassword({ email: "lost@example.com", context });
    const recovery = (await lastEmail("lost@example.com", "recovery"))!;
    const signedIn = await auth.verify({
      type: "email",
      proof: { email: "lost@example.com", code: recovery.otp },
      followedLink: false,
      context,
    });
    expect(signedIn.kind === "session" && signedIn.grant.session.amr[0]?.method).toBe("otp");
  });
});

describe("a signup verification on an account without a password", () => {
  async function passwordless() {
    const testAuth = createTestAuth();
    await testAuth.auth.sendMagicLink({ email: "nopass@example.com", createUser: true, context });
    const mail = (await testAuth.lastEmail("nopass@example.com", "confirmation"))!;
    return { ...testAuth, mail };
  }

  it("needs none, by link posted as a signup (verifyOtp with token_hash), by code as a signup or as a sign-in", async () => {
    for (const proof of ["token_hash", "signup code", "email code"] as const) {
      const { auth, mail, stores } = await passwordless();
      const result =
        proof === "token_hash"
          ? await auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: false, context })
          : await auth.verify({
              type: proof === "signup code" ? "signup" : "email",
              proof: { email: "nopass@example.com", code: mail.otp },
              followedLink: false,
              context,
            });
      expect(result.kind === "session" && result.grant.user.emailConfirmedAt).toBeInstanceOf(Date);
      expect((await stores.users.findByEmail("nopass@example.com"))?.passwordHash).toBeNull();
    }
  });

  it("sets the password sent along, when there is one", async () => {
    const { auth, mail } = await passwordless();
    const proof = { email: "nopass@example.com", code: mail.otp };
    const result = await auth.verify({
      type: "signup",
      proof,
      followedLink: false,
      password: "chosen-at-last",
      context,
    });
    expect(result.kind).toBe("session");
    expect(
      (await auth.signInWithPassword({ email: "nopass@example.com", password: "chosen-at-last", context })).user.email,
    ).toBe("nopass@example.com");
  });
});

describe("PKCE links", () => {
  it("lead a followed link to a code that only the verifier exchanges, once", async () => {
    const { auth, mail } = await signedUp({}, challenge);
    expect(mail.linkToken.startsWith("pkce_")).toBe(true);
    const result = await auth.verify({
      type: "signup",
      proof: { linkToken: mail.linkToken },
      followedLink: true,
      context,
    });
    expect(result.kind).toBe("auth_code");
    if (result.kind !== "auth_code") return;
    const grant = await auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context });
    expect(grant.user.email).toBe("ada@example.com");
    expect(grant.session.amr[0]?.method).toBe("email/signup");
    await failsWith(
      "flow_state_not_found",
      auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context }),
    );
  });

  it("exchange nothing for a user soft-deleted after the link was followed", async () => {
    const { auth, mail, user } = await signedUp({}, challenge);
    const result = await auth.verify({
      type: "signup",
      proof: { linkToken: mail.linkToken },
      followedLink: true,
      context,
    });
    if (result.kind !== "auth_code") throw new Error(`expected a code, got ${result.kind}`);
    await auth.admin.deleteUser({
      admin: { role: "service_role", userId: null, claims: {} },
      userId: user.id,
      softDelete: true,
      context,
    });
    await failsWith(
      "flow_state_not_found",
      auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context }),
    );
  });

  it("cannot be used to skip the verifier: posting the link's token yields nothing", async () => {
    const { auth, mail } = await signedUp({}, challenge);
    await failsWith(
      "validation_failed",
      auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: false, context }),
    );
  });

  it("burn a code tried with the wrong verifier, and refuse one exchanged too late", async () => {
    const first = await signedUp({}, challenge);
    const code = await first.auth.verify({
      type: "signup",
      proof: { linkToken: first.mail.linkToken },
      followedLink: true,
      context,
    });
    if (code.kind !== "auth_code") throw new Error("expected a code");
    await failsWith(
      "bad_code_verifier",
      first.auth.exchangeAuthCode({ authCode: code.authCode, codeVerifier: `${verifier.slice(0, -1)}x`, context }),
    );
    await failsWith(
      "flow_state_not_found",
      first.auth.exchangeAuthCode({ authCode: code.authCode, codeVerifier: verifier, context }),
    );

    const late = await signedUp({}, challenge);
    const lateCode = await late.auth.verify({
      type: "signup",
      proof: { linkToken: late.mail.linkToken },
      followedLink: true,
      context,
    });
    if (lateCode.kind !== "auth_code") throw new Error("expected a code");
    late.clock.advance({ seconds: 300 });
    await failsWith(
      "flow_state_expired",
      late.auth.exchangeAuthCode({ authCode: lateCode.authCode, codeVerifier: verifier, context }),
    );
  });

  it("accept the code typed from the mail directly: it proves the mailbox in the same app", async () => {
    const { auth, mail } = await signedUp({}, challenge);
    expect(
      (
        await auth.verify({
          type: "signup",
          proof: { email: "ada@example.com", code: mail.otp },
          followedLink: false,
          context,
        })
      ).kind,
    ).toBe("session");
  });

  it("refuse empty and unknown codes", async () => {
    const { auth } = createTestAuth();
    await failsWith("validation_failed", auth.exchangeAuthCode({ authCode: "", codeVerifier: verifier, context }));
    await failsWith(
      "flow_state_not_found",
      auth.exchangeAuthCode({ authCode: "no-such-code", codeVerifier: verifier, context }),
    );
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

    const first = await auth.verify({
      type: "email_change",
      proof: { linkToken: toOld.linkToken },
      followedLink: true,
      context,
    });
    expect(first.kind).toBe("awaiting_other_address");
    expect((await stores.users.findById(user.id))?.email).toBe("old@example.com");

    const second = await auth.verify({
      type: "email_change",
      proof: { email: "new@example.com", code: toNew.otp },
      followedLink: false,
      context,
    });
    expect(second.kind).toBe("session");
    const changed = (await stores.users.findById(user.id))!;
    expect(changed).toMatchObject({ email: "new@example.com", newEmail: null });
    expect(changed.identities.find((identity) => identity.provider === "email")?.identityData).toMatchObject({
      email: "new@example.com",
    });
    expect((await auth.signInWithPassword({ email: "new@example.com", password, context })).user.id).toBe(user.id);
  });

  it("is mailed to both addresses even with MAILER_AUTOCONFIRM", async () => {
    const { lastEmail } = await changing({ policy: { signup: { emailAutoconfirm: true } } });
    expect(await lastEmail("old@example.com", "email_change")).toBeDefined();
    expect(await lastEmail("new@example.com", "email_change")).toBeDefined();
  });

  it("needs only the new address when secure email change is off, and notifies the old one when asked to", async () => {
    const { auth, lastEmail, emails } = await changing({
      policy: { email: { secureEmailChange: false, notifications: { email_changed: true } } },
    });
    expect(await lastEmail("old@example.com", "email_change")).toBeUndefined();
    const toNew = (await lastEmail("new@example.com", "email_change"))!;
    expect(
      (await auth.verify({ type: "email_change", proof: { linkToken: toNew.linkToken }, followedLink: true, context }))
        .kind,
    ).toBe("session");
    expect((await emails()).filter((mail) => mail.kind === "email_changed")).toEqual([
      { kind: "email_changed", to: "old@example.com", email: "new@example.com", oldEmail: "old@example.com" },
    ]);
  });

  it("leads PKCE links to a code once both addresses confirmed, and only the verifier exchanges it", async () => {
    const testAuth = createTestAuth();
    await testAuth.stores.users.insert(
      aUser({ email: "old@example.com", passwordHash: await testAuth.hasher.hash(password) }),
    );
    const grant = await testAuth.auth.signInWithPassword({ email: "old@example.com", password, context });
    const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
    await testAuth.auth.updateUser({ principal, email: "new@example.com", ...challenge, context });
    const [toOld, toNew] = [
      (await testAuth.lastEmail("old@example.com", "email_change"))!,
      (await testAuth.lastEmail("new@example.com", "email_change"))!,
    ];
    expect([toOld.linkToken, toNew.linkToken].every((token) => token.startsWith("pkce_"))).toBe(true);

    const follow = (linkToken: string) =>
      testAuth.auth.verify({ type: "email_change", proof: { linkToken }, followedLink: true, context });
    expect((await follow(toOld.linkToken)).kind).toBe("awaiting_other_address");
    const result = await follow(toNew.linkToken);
    if (result.kind !== "auth_code") throw new Error("expected a code");
    const exchanged = await testAuth.auth.exchangeAuthCode({
      authCode: result.authCode,
      codeVerifier: verifier,
      context,
    });
    expect(exchanged.user.email).toBe("new@example.com");
  });

  it("takes an address someone signed up with and never confirmed from them, once its owner proves it", async () => {
    const testAuth = await changing({ policy: { email: { secureEmailChange: false } } });
    // The squatter signs up after the change was asked for; the owner's confirmation still wins.
    await testAuth.auth.signUp({ email: "new@example.com", password: "squatting", context });
    const squatter = (await testAuth.stores.users.findByEmail("new@example.com"))!;
    const toNew = (await testAuth.lastEmail("new@example.com", "email_change"))!;
    await testAuth.auth.verify({
      type: "email_change",
      proof: { linkToken: toNew.linkToken },
      followedLink: true,
      context,
    });
    expect((await testAuth.stores.users.findByEmail("new@example.com"))?.id).toBe(testAuth.user.id);
    expect((await testAuth.stores.users.findById(squatter.id))?.email).toBeNull();
  });

  describe("cannot be completed from the new address alone (account takeover)", () => {
    // The attacker holds only the victim's access token and moves the account to attacker@example.com.
    const attacker = { ip: "198.51.100.9", userAgent: "curl" } as const;
    async function takeoverStarted() {
      const testAuth = createTestAuth();
      const victim = aUser({ email: "victim@example.com", passwordHash: await testAuth.hasher.hash(password) });
      await testAuth.stores.users.insert(victim);
      const grant = await testAuth.auth.signInWithPassword({ email: "victim@example.com", password, context });
      const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
      await testAuth.auth.updateUser({ principal, email: "attacker@example.com", context: attacker });
      const toAttacker = (await testAuth.lastEmail("attacker@example.com", "email_change"))!;
      const toVictim = (await testAuth.lastEmail("victim@example.com", "email_change"))!;
      const wrongFor = (otp: string) => (otp === "000000" ? "111111" : "000000");
      const guess = (email: string, code: string) =>
        testAuth.auth.verify({ type: "email_change", proof: { email, code }, followedLink: false, context: attacker });
      const followAttackersLink = () =>
        testAuth.auth.verify({
          type: "email_change",
          proof: { linkToken: toAttacker.linkToken },
          followedLink: true,
          context: attacker,
        });
      const expectUnmoved = async () => {
        const stored = (await testAuth.stores.users.findById(victim.id))!;
        expect(stored.email).toBe("victim@example.com");
        expect(await testAuth.stores.users.findByEmail("attacker@example.com")).toBeNull();
        // Recovery mail still goes to the victim, and none to the attacker.
        await testAuth.auth.recoverPassword({ email: "attacker@example.com", context: attacker });
        expect(await testAuth.lastEmail("attacker@example.com", "recovery")).toBeUndefined();
      };
      return { ...testAuth, victim, toAttacker, toVictim, wrongFor, guess, followAttackersLink, expectUnmoved };
    }

    it("when wrong codes sent to the current address destroyed its code", async () => {
      const { guess, wrongFor, toVictim, followAttackersLink, expectUnmoved } = await takeoverStarted();
      for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++)
        await failsWith("otp_expired", guess("victim@example.com", wrongFor(toVictim.otp)));
      expect((await followAttackersLink()).kind).toBe("awaiting_other_address");
      await expectUnmoved();
    });

    it("when the current address's token expired", async () => {
      const testAuth = await takeoverStarted();
      const { auth, clock, policy, victim, toVictim, expectUnmoved } = testAuth;
      // Another link to the new address, for the same change, outlives the one mailed to the current address.
      clock.advance({ seconds: policy.otp.emailOtpExpSeconds - 60 });
      const admin = { role: "service_role", userId: null, claims: {} };
      const fresh = await auth.admin.generateLink({
        admin,
        type: "email_change_new",
        email: victim.email!,
        newEmail: "attacker@example.com",
        context,
      });
      clock.advance({ seconds: 120 });
      await failsWith(
        "otp_expired",
        auth.verify({ type: "email_change", proof: { linkToken: toVictim.linkToken }, followedLink: true, context }),
      );
      const followed = await auth.verify({
        type: "email_change",
        proof: { linkToken: fresh.email.linkToken },
        followedLink: true,
        context,
      });
      expect(followed.kind).toBe("awaiting_other_address");
      await expectUnmoved();
    });

    it("when the current address confirmed an earlier request, which a second one replaced", async () => {
      const testAuth = createTestAuth();
      const { auth, clock, stores, lastEmail } = testAuth;
      const victim = aUser({ email: "victim@example.com", passwordHash: await testAuth.hasher.hash(password) });
      await stores.users.insert(victim);
      const grant = await auth.signInWithPassword({ email: "victim@example.com", password, context });
      const principal = await auth.authenticate({ accessToken: grant.accessToken });
      // The victim moves to a new address of their own, and confirms from the current one first.
      await auth.updateUser({ principal, email: "victim-new@example.com", context });
      const fromVictim = (await lastEmail("victim@example.com", "email_change"))!;
      expect(
        (
          await auth.verify({
            type: "email_change",
            proof: { linkToken: fromVictim.linkToken },
            followedLink: true,
            context,
          })
        ).kind,
      ).toBe("awaiting_other_address");
      expect((await stores.users.findById(victim.id))?.emailChangeConfirmedBy).toBe("current");
      // Before the victim confirms the new address, the attacker asks for another change with the stolen token.
      clock.advance({ seconds: 901 });
      await auth.updateUser({ principal, email: "attacker@example.com", context: attacker });
      expect((await stores.users.findById(victim.id))?.emailChangeConfirmedBy).toBeNull();
      const toAttacker = (await lastEmail("attacker@example.com", "email_change"))!;
      const followed = await auth.verify({
        type: "email_change",
        proof: { linkToken: toAttacker.linkToken },
        followedLink: true,
        context: attacker,
      });
      expect(followed.kind).toBe("awaiting_other_address");
      expect((await stores.users.findById(victim.id))?.email).toBe("victim@example.com");
      // The replaced request's link to the victim's new address is void too.
      const toVictimsNew = (await lastEmail("victim-new@example.com", "email_change"))!;
      await failsWith(
        "otp_expired",
        auth.verify({
          type: "email_change",
          proof: { linkToken: toVictimsNew.linkToken },
          followedLink: true,
          context,
        }),
      );
    });

    it("when both addresses' codes were guessed at until they died", async () => {
      const testAuth = await takeoverStarted();
      const { guess, wrongFor, toVictim, toAttacker, followAttackersLink, expectUnmoved } = testAuth;
      for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) {
        await failsWith("otp_expired", guess("victim@example.com", wrongFor(toVictim.otp)));
        await failsWith("otp_expired", guess("attacker@example.com", wrongFor(toAttacker.otp)));
      }
      // That client may guess no more; a right guess of the current address's code from another comes too late.
      await failsWith("over_request_rate_limit", guess("victim@example.com", toVictim.otp));
      const elsewhere = { ip: "192.0.2.44", userAgent: "curl" };
      await failsWith(
        "otp_expired",
        testAuth.auth.verify({
          type: "email_change",
          proof: { email: "victim@example.com", code: toVictim.otp },
          followedLink: false,
          context: elsewhere,
        }),
      );
      expect((await followAttackersLink()).kind).toBe("awaiting_other_address");
      await expectUnmoved();
    });

    it("and completes once the current address's owner follows their own link", async () => {
      const { auth, guess, wrongFor, toVictim, followAttackersLink, stores, victim } = await takeoverStarted();
      for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++)
        await failsWith("otp_expired", guess("victim@example.com", wrongFor(toVictim.otp)));
      expect((await followAttackersLink()).kind).toBe("awaiting_other_address");
      // Only the owner of the current mailbox can do this: the change is theirs to allow.
      const result = await auth.verify({
        type: "email_change",
        proof: { linkToken: toVictim.linkToken },
        followedLink: true,
        context,
      });
      expect(result.kind).toBe("session");
      expect((await stores.users.findById(victim.id))?.email).toBe("attacker@example.com");
    });
  });

  it("makes an anonymous user permanent once its first address is confirmed", async () => {
    const { auth, lastEmail, stores } = createTestAuth({ policy: { signup: { anonymousEnabled: true } } });
    const anonymous = await auth.signUp({ context });
    if (anonymous.kind !== "session") throw new Error("expected a session");
    const principal = await auth.authenticate({ accessToken: anonymous.grant.accessToken });
    await auth.updateUser({ principal, email: "kept@example.com", context });
    const toNew = (await lastEmail("kept@example.com", "email_change"))!;
    const result = await auth.verify({
      type: "email_change",
      proof: { linkToken: toNew.linkToken },
      followedLink: true,
      context,
    });
    expect(result.kind === "session" && result.grant.user).toMatchObject({
      email: "kept@example.com",
      isAnonymous: false,
    });
    expect((await stores.users.findById(principal.user.id))?.isAnonymous).toBe(false);
  });
});
