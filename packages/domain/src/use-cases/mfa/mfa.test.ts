import { describe, expect, it } from "vitest";
import type { RequestContext, SessionGrant } from "../../deps.ts";
import { aUser } from "../../testing/builders.ts";
import type { TestAuth, TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { RecordingSmsSender } from "../../testing/recording-senders.ts";
import { principalOf, signedIn, TEST_PASSWORD } from "../../testing/signed-in.ts";
import { totpCode, totpStep } from "../../testing/test-totp.ts";

const password = TEST_PASSWORD;
const admin = { role: "service_role", userId: null, claims: {} };

async function enrollTotp(testAuth: TestAuth, grant: SessionGrant, friendlyName?: string) {
  const enrolled = await testAuth.auth.mfa.enroll({
    principal: await principalOf(testAuth, grant),
    factorType: "totp",
    friendlyName,
    issuer: undefined,
    phone: undefined,
    context,
  });
  if (!("totp" in enrolled)) throw new Error("expected a TOTP enrollment");
  return enrolled;
}

/** A challenge of the factor, answered with `code`. */
async function answer(testAuth: TestAuth, grant: SessionGrant, factorId: string, code: string) {
  const principal = await principalOf(testAuth, grant);
  const challenge = await testAuth.auth.mfa.challenge({ principal, factorId, channel: undefined, context });
  return testAuth.auth.mfa.verify({ principal, factorId, challengeId: challenge.id, code, context });
}

/** The code the app shows now, `offset` steps from now. */
function codeNow(testAuth: TestAuth, secret: string, offset = 0): string {
  return totpCode(secret, totpStep(testAuth.clock.now()) + offset);
}

describe("enrolling a TOTP factor", () => {
  it("answers the secret, its otpauth URI and QR code, and keeps the factor unverified with its secret sealed", async () => {
    const testAuth = await signedIn();
    const enrolled = await enrollTotp(testAuth, testAuth.grant, "Phone app");
    expect(enrolled.totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrolled.totp.uri).toContain(`secret=${enrolled.totp.secret}`);
    // The issuer is SITE_URL's host unless the request names one; the account, the user's email.
    expect(enrolled.totp.uri).toContain(`otpauth://totp/localhost%3A3000:${testAuth.user.email}`);
    const [factor] = (await testAuth.stores.users.findById(testAuth.user.id))!.factors;
    expect(factor).toMatchObject({ type: "totp", status: "unverified", friendlyName: "Phone app", lastTotpStep: null });
    expect(factor!.sealedSecret).not.toContain(enrolled.totp.secret);
    expect(testAuth.ports.factorSecrets.open(factor!.id, factor!.sealedSecret!)).toBe(enrolled.totp.secret);
  });

  it("refuses a second factor of the same name, an unnamed one included, and past the limit", async () => {
    const testAuth = await signedIn({ policy: { mfa: { maxEnrolledFactors: 2 } } });
    await enrollTotp(testAuth, testAuth.grant);
    await failsWith("mfa_factor_name_conflict", enrollTotp(testAuth, testAuth.grant));
    await enrollTotp(testAuth, testAuth.grant, "Second");
    await failsWith("too_many_enrolled_mfa_factors", enrollTotp(testAuth, testAuth.grant, "Third"));
  });

  it("removes unverified factors left idle past MFA_FACTOR_EXPIRY_DURATION, at the next enrollment", async () => {
    const testAuth = await signedIn();
    const stale = await enrollTotp(testAuth, testAuth.grant);
    testAuth.clock.advance({ seconds: 301 });
    const fresh = await enrollTotp(testAuth, testAuth.grant);
    const factors = (await testAuth.stores.users.findById(testAuth.user.id))!.factors.map((f) => f.id);
    expect(factors).toEqual([fresh.factor.id]);
    expect(factors).not.toContain(stale.factor.id);
  });

  it("refuses switched-off and unknown types, and anything without a session", async () => {
    const testAuth = await signedIn({ policy: { mfa: { totp: { enroll: false }, webauthn: { enroll: false } } } });
    await failsWith("mfa_totp_enroll_not_enabled", enrollTotp(testAuth, testAuth.grant));
    const principal = await principalOf(testAuth, testAuth.grant);
    const enroll = (factorType: string) =>
      testAuth.auth.mfa.enroll({
        principal,
        factorType,
        friendlyName: undefined,
        issuer: undefined,
        phone: undefined,
        context,
      });
    await failsWith("mfa_webauthn_enroll_not_enabled", enroll("webauthn"));
    await failsWith("validation_failed", enroll("sms"));
    await failsWith("validation_failed", enroll("phone"));
    const sessionless = { ...principal, session: null };
    await failsWith(
      "session_not_found",
      testAuth.auth.mfa.enroll({
        principal: sessionless,
        factorType: "totp",
        friendlyName: undefined,
        issuer: undefined,
        phone: undefined,
        context,
      }),
    );
  });
});

describe("verifying a TOTP factor", () => {
  it("takes the session to aal2 with totp first in its amr, a new refresh token, and ends the other aal1 sessions", async () => {
    const testAuth = await signedIn();
    const { auth, user, grant } = testAuth;
    const otherDevice = await auth.signInWithPassword({ email: user.email!, password, context });
    const { factor, totp } = await enrollTotp(testAuth, grant);

    const stepped = await answer(testAuth, grant, factor.id, codeNow(testAuth, totp.secret));
    expect(stepped.session.id).toBe(grant.session.id);
    expect(stepped.session.aal).toBe("aal2");
    expect(stepped.session.amr.map((entry) => entry.method)).toEqual(["totp", "password"]);
    expect(stepped.refreshToken).not.toBe(grant.refreshToken);
    expect(stepped.user.factors).toMatchObject([{ id: factor.id, status: "verified" }]);

    // The aal2 session goes on; refreshing keeps it at aal2.
    const refreshed = await auth.refreshSession({ refreshToken: stepped.refreshToken, context });
    expect(refreshed.session.aal).toBe("aal2");
    // The other device's aal1 session is over.
    await failsWith("session_not_found", auth.authenticate({ accessToken: otherDevice.accessToken }));
    await failsWith(
      "refresh_token_not_found",
      auth.refreshSession({ refreshToken: otherDevice.refreshToken, context }),
    );
  });

  it("does not let the aal1 refresh token mint an aal2 session: presented again, it ends the session", async () => {
    const testAuth = await signedIn();
    const { factor, totp } = await enrollTotp(testAuth, testAuth.grant);
    const stepped = await answer(testAuth, testAuth.grant, factor.id, codeNow(testAuth, totp.secret));
    await failsWith(
      "refresh_token_already_used",
      testAuth.auth.refreshSession({ refreshToken: testAuth.grant.refreshToken, context }),
    );
    await failsWith(
      "refresh_token_not_found",
      testAuth.auth.refreshSession({ refreshToken: stepped.refreshToken, context }),
    );
  });

  it("accepts the codes of the steps either side of now and no further", async () => {
    for (const [offset, accepted] of [
      [-2, false],
      [-1, true],
      [1, true],
      [2, false],
    ] as const) {
      const testAuth = await signedIn();
      const { factor, totp } = await enrollTotp(testAuth, testAuth.grant);
      const verifying = answer(testAuth, testAuth.grant, factor.id, codeNow(testAuth, totp.secret, offset));
      if (accepted) expect((await verifying).session.aal).toBe("aal2");
      else await failsWith("mfa_verification_failed", verifying);
    }
  });

  it("never accepts a code twice, nor one of an earlier step once a later one was used", async () => {
    const testAuth = await signedIn();
    const { factor, totp } = await enrollTotp(testAuth, testAuth.grant);
    const later = codeNow(testAuth, totp.secret, 1);
    const stepped = await answer(testAuth, testAuth.grant, factor.id, later);
    await failsWith("mfa_verification_failed", answer(testAuth, stepped, factor.id, later));
    await failsWith("mfa_verification_failed", answer(testAuth, stepped, factor.id, codeNow(testAuth, totp.secret)));
    testAuth.clock.advance({ seconds: 60 });
    expect((await answer(testAuth, stepped, factor.id, codeNow(testAuth, totp.secret))).session.aal).toBe("aal2");
  });

  it("answers a challenge once, from the address that made it, within MFA_CHALLENGE_EXPIRY_DURATION", async () => {
    const testAuth = await signedIn();
    const { auth, clock, grant } = testAuth;
    const { factor, totp } = await enrollTotp(testAuth, grant);
    const principal = await principalOf(testAuth, grant);
    const challenge = () => auth.mfa.challenge({ principal, factorId: factor.id, channel: undefined, context });
    const verify = (challengeId: string, from: RequestContext = context) =>
      auth.mfa.verify({
        principal,
        factorId: factor.id,
        challengeId,
        code: codeNow(testAuth, totp.secret),
        context: from,
      });

    const elsewhere = await challenge();
    await failsWith("mfa_ip_address_mismatch", verify(elsewhere.id, { ...context, ip: "198.51.100.9" }));

    const expiring = await challenge();
    expect(expiring.expiresAt.getTime()).toBe(clock.now().getTime() + 300_000);
    clock.advance({ seconds: 300 });
    await failsWith("mfa_challenge_expired", verify(expiring.id));
    // Removed as it expired: it is no challenge of the factor any more.
    await failsWith("mfa_factor_not_found", verify(expiring.id));

    const used = await challenge();
    const stepped = await verify(used.id);
    const again = auth.mfa.verify({
      principal: await principalOf(testAuth, stepped),
      factorId: factor.id,
      challengeId: used.id,
      code: codeNow(testAuth, totp.secret, 1),
      context,
    });
    await failsWith("mfa_ip_address_mismatch", again);
  });

  it("limits the wrong codes a factor may take, from any client", async () => {
    const testAuth = await signedIn();
    const { factor, totp } = await enrollTotp(testAuth, testAuth.grant);
    const wrong = codeNow(testAuth, totp.secret) === "000000" ? "111111" : "000000";
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const client = { ...context, ip: `198.51.100.${attempt}` };
      const principal = await principalOf(testAuth, testAuth.grant);
      const challenge = await testAuth.auth.mfa.challenge({
        principal,
        factorId: factor.id,
        channel: undefined,
        context: client,
      });
      await failsWith(
        "mfa_verification_failed",
        testAuth.auth.mfa.verify({
          principal,
          factorId: factor.id,
          challengeId: challenge.id,
          code: wrong,
          context: client,
        }),
      );
    }
    const error = await failsWith(
      "over_request_rate_limit",
      answer(testAuth, testAuth.grant, factor.id, codeNow(testAuth, totp.secret)),
    );
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(testAuth.events.of("rate_limited")).toEqual([{ kind: "rate_limited", limit: "wrong_codes" }]);
  });

  it("lets a burst of concurrent guesses have no more codes evaluated than the limit", async () => {
    const testAuth = await signedIn({ policy: { mfa: { challengeAndVerifyPerMinute: 1000 } } });
    const { factor, totp } = await enrollTotp(testAuth, testAuth.grant);
    const wrong = codeNow(testAuth, totp.secret) === "000000" ? "111111" : "000000";
    const principal = await principalOf(testAuth, testAuth.grant);
    const challenges = [];
    for (let i = 0; i < 40; i += 1) {
      challenges.push(
        await testAuth.auth.mfa.challenge({ principal, factorId: factor.id, channel: undefined, context }),
      );
    }
    const outcomes = await Promise.all(
      challenges.map((challenge) =>
        testAuth.auth.mfa
          .verify({ principal, factorId: factor.id, challengeId: challenge.id, code: wrong, context })
          .then(
            () => "verified",
            (error: { code?: string }) => error.code,
          ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === "mfa_verification_failed")).toHaveLength(10);
    expect(outcomes.filter((outcome) => outcome === "over_request_rate_limit")).toHaveLength(30);
  });

  it("refuses a factor of another user, and a type whose verification is switched off", async () => {
    const testAuth = await signedIn({ policy: { mfa: { totp: { verify: false } } } });
    const { factor } = await enrollTotp(testAuth, testAuth.grant);
    const principal = await principalOf(testAuth, testAuth.grant);
    await failsWith(
      "mfa_totp_verify_not_enabled",
      testAuth.auth.mfa.challenge({ principal, factorId: factor.id, channel: undefined, context }),
    );
    const stranger = aUser({ passwordHash: await testAuth.hasher.hash(password) });
    await testAuth.stores.users.insert(stranger);
    const theirs = await testAuth.auth.signInWithPassword({ email: stranger.email!, password, context });
    const principalOfStranger = await principalOf(testAuth, theirs);
    await failsWith(
      "mfa_factor_not_found",
      testAuth.auth.mfa.challenge({ principal: principalOfStranger, factorId: factor.id, channel: undefined, context }),
    );
  });
});

describe("a user with a verified factor", () => {
  async function withVerifiedFactor(options: TestAuthOptions = {}) {
    const testAuth = await signedIn(options);
    const { factor, totp } = await enrollTotp(testAuth, testAuth.grant);
    const stepped = await answer(testAuth, testAuth.grant, factor.id, codeNow(testAuth, totp.secret));
    const aal1 = await testAuth.auth.signInWithPassword({ email: testAuth.user.email!, password, context });
    return { ...testAuth, factor, totp, stepped, aal1 };
  }

  it("needs aal2 to enroll another factor, to unenroll a verified one, and to change password or email", async () => {
    const testAuth = await withVerifiedFactor();
    const { auth, aal1, factor } = testAuth;
    await failsWith("insufficient_aal", enrollTotp(testAuth, aal1, "Second"));
    const principal = await principalOf(testAuth, aal1);
    await failsWith("insufficient_aal", auth.mfa.unenroll({ principal, factorId: factor.id, context }));
    await failsWith("insufficient_aal", auth.updateUser({ principal, password: "another-pass-1", context }));
    await failsWith("insufficient_aal", auth.updateUser({ principal, email: "new@example.com", context }));
    // Metadata is no way into the account: it changes at aal1.
    expect((await auth.updateUser({ principal, data: { theme: "dark" }, context })).userMetadata).toEqual({
      theme: "dark",
    });
    await enrollTotp(testAuth, testAuth.stepped, "Second");
  });

  it("unenrolls from aal2: the sessions the factor took to aal2 drop to aal1 and the account is told", async () => {
    const testAuth = await withVerifiedFactor({
      policy: { email: { notifications: { mfa_factor_enrolled: true, mfa_factor_unenrolled: true } } },
    });
    const { auth, stepped, factor, user } = testAuth;
    expect(await testAuth.lastEmail(user.email!, "mfa_factor_enrolled")).toMatchObject({ factorType: "totp" });
    const principal = await principalOf(testAuth, stepped);
    expect(await auth.mfa.unenroll({ principal, factorId: factor.id, context })).toEqual({ id: factor.id });
    const refreshed = await auth.refreshSession({ refreshToken: stepped.refreshToken, context });
    expect(refreshed.session.aal).toBe("aal1");
    expect(refreshed.session.amr.map((entry) => entry.method)).toEqual(["password"]);
    expect(refreshed.user.factors).toEqual([]);
    expect(await testAuth.lastEmail(user.email!, "mfa_factor_unenrolled")).toMatchObject({ factorType: "totp" });
  });

  it("lets an admin list and remove the factor, which ends the sessions' aal2", async () => {
    const testAuth = await withVerifiedFactor();
    const { auth, user, factor, stepped } = testAuth;
    expect((await auth.admin.listFactors({ userId: user.id })).map((each) => each.id)).toEqual([factor.id]);
    const removed = await auth.admin.deleteFactor({ admin, userId: user.id, factorId: factor.id, context });
    expect(removed.id).toBe(factor.id);
    await failsWith(
      "mfa_factor_not_found",
      auth.admin.deleteFactor({ admin, userId: user.id, factorId: factor.id, context }),
    );
    expect((await auth.refreshSession({ refreshToken: stepped.refreshToken, context })).session.aal).toBe("aal1");
    expect(await auth.admin.listFactors({ userId: user.id })).toEqual([]);
  });
});

describe("an admin's changes to a factor", () => {
  it("renames a factor, moves a phone factor to another number, and refuses a number on a TOTP factor", async () => {
    const testAuth = await signedIn();
    const { auth, user, grant } = testAuth;
    const totp = (await enrollTotp(testAuth, grant, "Old name")).factor;
    const principal = await principalOf(testAuth, grant);
    const phone = (
      await auth.mfa.enroll({
        principal,
        factorType: "phone",
        friendlyName: "Phone",
        issuer: undefined,
        phone: "+14155550123",
        context,
      })
    ).factor;
    const update = (factorId: string, changes: { friendlyName?: string; phone?: string }) =>
      auth.admin.updateFactor({
        admin,
        userId: user.id,
        factorId,
        friendlyName: changes.friendlyName,
        phone: changes.phone,
        context,
      });

    expect(await update(totp.id, { friendlyName: "Laptop" })).toMatchObject({ id: totp.id, friendlyName: "Laptop" });
    expect(await update(phone.id, { phone: "+1 415 555 0124" })).toMatchObject({
      friendlyName: "Phone",
      phone: "+14155550124",
    });
    await failsWith("validation_failed", update(totp.id, { phone: "+14155550125" }));
    await failsWith("validation_failed", update(phone.id, { phone: "not a number" }));
    await failsWith("mfa_factor_name_conflict", update(phone.id, { friendlyName: "Laptop" }));
    await failsWith("mfa_factor_not_found", update(crypto.randomUUID(), { friendlyName: "Nobody" }));
    const audit = await testAuth.stores.auditLog.list({ page: 1, perPage: 50 });
    expect(audit.entries.filter((entry) => entry.action === "factor_updated")).toHaveLength(2);
  });
});

describe("phone factors", () => {
  const phone = "+14155550111";

  async function enrollPhone(testAuth: TestAuth, grant: SessionGrant, number = phone) {
    const principal = await principalOf(testAuth, grant);
    return testAuth.auth.mfa.enroll({
      principal,
      factorType: "phone",
      friendlyName: number,
      issuer: undefined,
      phone: number,
      context,
    });
  }

  it("texts a code per challenge, at most one per MFA_PHONE_MAX_FREQUENCY, which verifies to aal2 with mfa/phone", async () => {
    const testAuth = await signedIn();
    const { auth, clock, grant } = testAuth;
    const { factor } = await enrollPhone(testAuth, grant);
    const principal = await principalOf(testAuth, grant);
    const challenge = await auth.mfa.challenge({ principal, factorId: factor.id, channel: undefined, context });
    const sms = testAuth.sms.lastTo(phone)!;
    expect(sms).toMatchObject({ kind: "mfa", to: phone });
    expect(sms.otp).toMatch(/^\d{6}$/);
    await failsWith(
      "over_sms_send_rate_limit",
      auth.mfa.challenge({ principal, factorId: factor.id, channel: undefined, context }),
    );
    const wrong = sms.otp === "000000" ? "111111" : "000000";
    await failsWith(
      "mfa_verification_failed",
      auth.mfa.verify({ principal, factorId: factor.id, challengeId: challenge.id, code: wrong, context }),
    );
    const stepped = await auth.mfa.verify({
      principal,
      factorId: factor.id,
      challengeId: challenge.id,
      code: sms.otp,
      context,
    });
    expect(stepped.session.aal).toBe("aal2");
    expect(stepped.session.amr[0]?.method).toBe("mfa/phone");
    clock.advance({ seconds: 61 });
    await auth.mfa.challenge({
      principal: await principalOf(testAuth, stepped),
      factorId: factor.id,
      channel: undefined,
      context,
    });
    expect(testAuth.sms.sent.filter((each) => each.to === phone)).toHaveLength(2);
  });

  it("gives an SMS_TEST_OTP number its fixed code and sends nothing", async () => {
    const testAuth = await signedIn({ policy: { sms: { testOtps: { [phone]: "123456" } } } });
    const { factor } = await enrollPhone(testAuth, testAuth.grant);
    const stepped = await answer(testAuth, testAuth.grant, factor.id, "123456");
    expect(stepped.session.aal).toBe("aal2");
    expect(testAuth.sms.sent).toEqual([]);
  });

  it("replaces an unverified factor of the same number, and refuses one of a verified number", async () => {
    const testAuth = await signedIn({ policy: { sms: { testOtps: { [phone]: "123456" } } } });
    const first = await enrollPhone(testAuth, testAuth.grant);
    const second = await enrollPhone(testAuth, testAuth.grant);
    expect((await testAuth.stores.users.findById(testAuth.user.id))!.factors.map((f) => f.id)).toEqual([
      second.factor.id,
    ]);
    expect(first.factor.id).not.toBe(second.factor.id);
    const stepped = await answer(testAuth, testAuth.grant, second.factor.id, "123456");
    await failsWith("mfa_verified_factor_exists", enrollPhone(testAuth, stepped));
  });

  it("refuses a number that is not E.164, and WhatsApp through a provider that sends SMS only", async () => {
    const testAuth = await signedIn();
    await failsWith("validation_failed", enrollPhone(testAuth, testAuth.grant, "not a number"));
    const { factor } = await enrollPhone(testAuth, testAuth.grant);
    const principal = await principalOf(testAuth, testAuth.grant);
    await failsWith(
      "validation_failed",
      testAuth.auth.mfa.challenge({ principal, factorId: factor.id, channel: "whatsapp", context }),
    );
  });

  it("sends the challenge's code by WhatsApp through a provider that sends it", async () => {
    const whatsapp = new RecordingSmsSender(true);
    const testAuth = await signedIn({ ports: { sms: whatsapp } });
    const { factor } = await enrollPhone(testAuth, testAuth.grant);
    const principal = await principalOf(testAuth, testAuth.grant);
    await testAuth.auth.mfa.challenge({ principal, factorId: factor.id, channel: "whatsapp", context });
    expect(whatsapp.sent).toEqual([{ kind: "mfa", to: phone, otp: expect.any(String), channel: "whatsapp" }]);
  });
});
