import { describe, expect, it } from "vitest";
import { AuthError } from "../errors.ts";
import type { AuthSms } from "../model/sms.ts";
import type { SmsSender } from "../ports/sms-sender.ts";
import { SMS_SEND_GUESS_MS } from "../services/abuse/timing.ts";
import { aUser } from "../testing/builders.ts";
import { createTestAuth, type TestAuth, type TestAuthOptions } from "../testing/create-test-auth.ts";
import { context, failsWith } from "../testing/fails-with.ts";
import { RecordingSmsSender } from "../testing/recording-senders.ts";
import type { TestClock } from "../testing/test-clock.ts";

const password = "secret-password";
const phone = "+15550100000";

/** An SMS provider that refuses some numbers for good, and can be made unreachable. */
function flakySms() {
  const sent: AuthSms[] = [];
  const state = { down: false, refused: new Set<string>() };
  const sms: SmsSender = {
    async send(message) {
      if (state.refused.has(message.to))
        throw new AuthError("sms_send_failed", "Error sending confirmation OTP to provider");
      if (state.down) throw new Error("twilio did not answer within 10000 ms");
      sent.push(message);
    },
  };
  return { sms, sent, state };
}

/** An SMS provider whose every send "takes" `milliseconds` of the test clock. */
function slowSms(clock: TestClock, milliseconds: number): SmsSender {
  return { send: async () => clock.advance({ milliseconds }) };
}

async function codeFor(testAuth: TestAuth, to: string): Promise<string> {
  const sms = await testAuth.lastSms(to);
  if (!sms) throw new Error(`no SMS to ${to}`);
  return sms.otp;
}

async function signedInByPhone(options: TestAuthOptions = {}) {
  const testAuth = createTestAuth(options);
  const user = aUser({
    email: "phone-owner@example.com",
    phone,
    phoneConfirmedAt: new Date(),
    passwordHash: await testAuth.hasher.hash(password),
  });
  await testAuth.stores.users.insert(user);
  const grant = await testAuth.auth.signInWithPassword({ phone, password, context });
  const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
  return { ...testAuth, user, principal };
}

describe("phone signup", () => {
  it("texts a code at once, and the code confirms the number and signs in", async () => {
    const testAuth = createTestAuth();
    const result = await testAuth.auth.signUp({ phone: "+1 555-010-0000", password, context });
    expect(result.kind === "user" && result.user).toMatchObject({ phone, phoneConfirmedAt: null });
    expect(testAuth.sms.sent).toEqual([{ kind: "confirmation", to: phone, otp: expect.stringMatching(/^\d{6}$/) }]);

    const verified = await testAuth.auth.verify({
      type: "sms",
      proof: { phone: "15550100000", code: await codeFor(testAuth, phone) },
      followedLink: false,
      context,
    });
    if (verified.kind !== "session") throw new Error("expected a session");
    expect(verified.grant.user.phoneConfirmedAt).toBeInstanceOf(Date);
    expect(verified.grant.session.amr[0]?.method).toBe("otp");
    expect((await testAuth.auth.signInWithPassword({ phone, password, context })).user.id).toBe(verified.grant.user.id);
  });

  it("fails with sms_send_failed and creates nothing when the provider refuses the number", async () => {
    const { sms, state } = flakySms();
    state.refused.add(phone);
    const testAuth = createTestAuth({ ports: { sms } });
    await failsWith("sms_send_failed", testAuth.auth.signUp({ phone, password, context }));
    expect(await testAuth.stores.users.findByPhone(phone)).toBeNull();
  });

  it("answers as sent when the provider cannot be reached, and the outbox texts the code once it can", async () => {
    const { sms, sent, state } = flakySms();
    state.down = true;
    const testAuth = createTestAuth({ ports: { sms } });
    await testAuth.auth.signUp({ phone, password, context });
    expect(sent).toEqual([]);
    state.down = false;
    testAuth.clock.advance({ seconds: 2 });
    await testAuth.deliver();
    expect(sent.map((message) => message.to)).toEqual([phone]);
    await testAuth.deliver();
    expect(sent).toHaveLength(1);
  });

  it("gives up on a retried SMS the provider then refuses for good", async () => {
    const { sms, sent, state } = flakySms();
    state.down = true;
    const testAuth = createTestAuth({ ports: { sms } });
    await testAuth.auth.signUp({ phone, password, context });
    state.refused.add(phone);
    testAuth.clock.advance({ seconds: 2 });
    const report = await testAuth.auth.deliverDueMessages();
    expect(report.failures).toEqual([expect.objectContaining({ willRetry: false })]);
    expect(sent).toEqual([]);
  });

  it("survives only five wrong codes", async () => {
    const testAuth = createTestAuth();
    await testAuth.auth.signUp({ phone, password, context });
    const code = await codeFor(testAuth, phone);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let guess = 0; guess < 5; guess++) {
      await failsWith(
        "otp_expired",
        testAuth.auth.verify({ type: "sms", proof: { phone, code: wrong }, followedLink: false, context }),
      );
    }
    await failsWith(
      "otp_expired",
      testAuth.auth.verify({ type: "sms", proof: { phone, code }, followedLink: false, context }),
    );
  });

  it("keeps a stranger's password off the account when the number's owner signs up too", async () => {
    const testAuth = createTestAuth();
    await testAuth.auth.signUp({ phone, password: "a stranger's choice", context });
    testAuth.clock.advance({ seconds: 60 });
    await testAuth.auth.signUp({ phone, password, context });
    await testAuth.auth.verify({
      type: "sms",
      proof: { phone, code: await codeFor(testAuth, phone) },
      followedLink: false,
      context,
    });
    await failsWith(
      "invalid_credentials",
      testAuth.auth.signInWithPassword({ phone, password: "a stranger's choice", context }),
    );
  });

  it("expires the code after SMS_OTP_EXP", async () => {
    const testAuth = createTestAuth();
    await testAuth.auth.signUp({ phone, password, context });
    const code = await codeFor(testAuth, phone);
    testAuth.clock.advance({ seconds: 60 });
    await failsWith(
      "otp_expired",
      testAuth.auth.verify({ type: "sms", proof: { phone, code }, followedLink: false, context }),
    );
  });

  it("refuses WhatsApp through a provider that sends SMS only, and unknown channels, in GoTrue's words", async () => {
    const { auth, sms } = createTestAuth();
    const refused = await failsWith(
      "validation_failed",
      auth.signUp({ phone, password, channel: "whatsapp", context }),
    );
    expect(refused.message).toBe(
      "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.",
    );
    await failsWith("validation_failed", auth.sendSmsOtp({ phone, createUser: true, channel: "whatsapp", context }));
    const whatsapp = createTestAuth({ ports: { sms: new RecordingSmsSender(true) } }).auth;
    await failsWith("validation_failed", whatsapp.sendSmsOtp({ phone, createUser: true, channel: "pigeon", context }));
    expect(sms.sent).toEqual([]);
  });
});

describe("codes by WhatsApp, through a provider that sends it", () => {
  function whatsappAuth() {
    const whatsapp = new RecordingSmsSender(true);
    return { ...createTestAuth({ ports: { sms: whatsapp } }), whatsapp };
  }

  it("go where the request asks: a signup's, a sign-in code's and a new number's, each of which works", async () => {
    const testAuth = whatsappAuth();
    const { auth, whatsapp } = testAuth;
    await auth.signUp({ phone, password, channel: "whatsapp", context });
    expect(whatsapp.sent).toEqual([{ kind: "confirmation", to: phone, otp: expect.any(String), channel: "whatsapp" }]);
    const signedUp = await auth.verify({
      type: "sms",
      proof: { phone, code: whatsapp.sent[0]!.otp },
      followedLink: false,
      context,
    });
    if (signedUp.kind !== "session") throw new Error("expected a session");

    testAuth.clock.advance({ seconds: 61 });
    await auth.sendSmsOtp({ phone, createUser: false, channel: "whatsapp", context });
    expect(whatsapp.lastTo(phone)).toMatchObject({ kind: "otp", channel: "whatsapp" });
    const audit = await testAuth.stores.auditLog.list({ page: 1, perPage: 50 });
    expect(audit.entries.find((entry) => entry.action === "user_recovery_requested")?.traits).toEqual({
      channel: "whatsapp",
    });

    const principal = await auth.authenticate({ accessToken: signedUp.grant.accessToken });
    await auth.updateUser({ principal, phone: "+15550100555", channel: "whatsapp", context });
    const change = whatsapp.lastTo("+15550100555");
    expect(change).toMatchObject({ kind: "phone_change", channel: "whatsapp" });
    const moved = await auth.verify({
      type: "phone_change",
      proof: { phone: "+15550100555", code: change!.otp },
      followedLink: false,
      context,
    });
    expect(moved.kind === "session" && moved.grant.user.phone).toBe("+15550100555");
  });

  it("go by WhatsApp again when the outbox retries one whose sending was in doubt", async () => {
    const { sms, sent, state } = flakySms();
    state.down = true;
    const testAuth = createTestAuth({ ports: { sms: { ...sms, sendsWhatsapp: true } } });
    await testAuth.auth.sendSmsOtp({ phone, createUser: true, channel: "whatsapp", context });
    state.down = false;
    testAuth.clock.advance({ seconds: 2 });
    await testAuth.deliver();
    expect(sent).toEqual([{ kind: "otp", to: phone, otp: expect.any(String), channel: "whatsapp" }]);
  });

  it("leave /resend and a request without a channel to SMS", async () => {
    const { auth, whatsapp, clock } = whatsappAuth();
    await auth.signUp({ phone, password, channel: "whatsapp", context });
    clock.advance({ seconds: 61 });
    await auth.resend({ type: "sms", phone, context });
    clock.advance({ seconds: 61 });
    await auth.sendSmsOtp({ phone, createUser: false, context });
    expect(whatsapp.sent.map((sms) => sms.channel ?? "sms")).toEqual(["whatsapp", "sms", "sms"]);
  });
});

describe("sign-in codes by SMS (/otp)", () => {
  it("sign a confirmed user in with the number's code, recorded as a login", async () => {
    const testAuth = await signedInByPhone();
    const { messageId } = await testAuth.auth.sendSmsOtp({ phone, createUser: false, context });
    expect(messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await testAuth.lastSms(phone))?.kind).toBe("otp");
    const verified = await testAuth.auth.verify({
      type: "sms",
      proof: { phone, code: await codeFor(testAuth, phone) },
      followedLink: false,
      context,
    });
    expect(verified.kind === "session" && verified.grant.user.id).toBe(testAuth.user.id);
    // A sign-in code is no signup: the password stays.
    await testAuth.auth.signInWithPassword({ phone, password, context });
  });

  it("create an account for an unknown number, which the code confirms", async () => {
    const testAuth = createTestAuth();
    await testAuth.auth.sendSmsOtp({ phone, createUser: true, data: { plan: "free" }, context });
    const created = (await testAuth.stores.users.findByPhone(phone))!;
    expect(created).toMatchObject({ passwordHash: null, phoneConfirmedAt: null });
    expect(created.userMetadata).not.toHaveProperty("plan");
    await testAuth.auth.verify({
      type: "sms",
      proof: { phone, code: await codeFor(testAuth, phone) },
      followedLink: false,
      context,
    });
    expect(await testAuth.stores.users.findByPhone(phone)).toMatchObject({
      phoneConfirmedAt: expect.any(Date),
      userMetadata: { plan: "free" },
    });
  });

  it("refuse an unknown number as GoTrue does when no account may be created, sending nothing", async () => {
    const testAuth = createTestAuth();
    const refused = await failsWith("otp_disabled", testAuth.auth.sendSmsOtp({ phone, createUser: false, context }));
    expect(refused.message).toBe("Signups not allowed for otp");
    expect(await testAuth.stores.users.findByPhone(phone)).toBeNull();
    expect(testAuth.sms.sent).toEqual([]);
  });

  it("are limited to one per SMS_MAX_FREQUENCY per number, known or to be created", async () => {
    const testAuth = await signedInByPhone();
    for (const number of [phone, "+15550100999"]) {
      await testAuth.auth.sendSmsOtp({ phone: number, createUser: true, context });
      const error = await failsWith(
        "over_sms_send_rate_limit",
        testAuth.auth.sendSmsOtp({ phone: number, createUser: true, context }),
      );
      expect(error.retryAfterSeconds).toBe(60);
    }
  });

  it("are refused when the phone provider is off", async () => {
    const { auth } = createTestAuth({ policy: { signup: { phoneEnabled: false } } });
    await failsWith("phone_provider_disabled", auth.sendSmsOtp({ phone, createUser: true, context }));
  });

  it("leave no password a stranger's phone signup chose once the number's owner signs in", async () => {
    const testAuth = createTestAuth();
    await testAuth.auth.signUp({ phone, password: "a stranger's choice", context });
    testAuth.clock.advance({ seconds: 60 });
    await testAuth.auth.sendSmsOtp({ phone, createUser: true, context });
    await testAuth.auth.verify({
      type: "sms",
      proof: { phone, code: await codeFor(testAuth, phone) },
      followedLink: false,
      context,
    });
    await failsWith(
      "invalid_credentials",
      testAuth.auth.signInWithPassword({ phone, password: "a stranger's choice", context }),
    );
  });
});

describe("timing", () => {
  it("answers a duplicate of a confirmed number as slowly as phone signups, which text, not email ones", async () => {
    const base = createTestAuth();
    const { auth } = createTestAuth({ ports: { ...base.ports, sms: slowSms(base.clock, 400) } });
    const { clock, stores } = base;
    await stores.users.insert(aUser({ email: null, phone, phoneConfirmedAt: new Date() }));
    await auth.signUp({ email: "quick@example.com", password, context });

    const beforeReal = clock.now().getTime();
    await auth.signUp({ phone: "+15550100321", password, context });
    const real = clock.now().getTime() - beforeReal;
    const beforeDuplicate = clock.now().getTime();
    await auth.signUp({ phone, password, context });
    expect(real).toBe(400);
    expect(clock.now().getTime() - beforeDuplicate).toBe(real);
  });

  it("answers an unknown number's resend as slowly as a provider would take, before any send was timed", async () => {
    const { auth, clock } = createTestAuth();
    const before = clock.now().getTime();
    await auth.resend({ type: "sms", phone, context });
    expect(clock.now().getTime() - before).toBe(SMS_SEND_GUESS_MS);
  });
});

describe("RATE_LIMIT_SMS_SENT", () => {
  it("is spent only by an SMS sent, then refuses every number alike, and never the numbers of SMS_TEST_OTP", async () => {
    const testAuth = createTestAuth({
      policy: { sms: { sendLimit: { events: 1, perSeconds: 3600 }, testOtps: { "+15550100777": "777777" } } },
    });
    // Numbers nobody has, texted nothing, spend nothing.
    for (let i = 0; i < 10; i++) await testAuth.auth.resend({ type: "sms", phone: `+1555010030${i}`, context });
    await testAuth.auth.sendSmsOtp({ phone: "+15550100111", createUser: true, context });
    expect(testAuth.sms.sent.map((sms) => sms.to)).toEqual(["+15550100111"]);
    const error = await failsWith(
      "over_sms_send_rate_limit",
      testAuth.auth.sendSmsOtp({ phone: "+15550100222", createUser: true, context }),
    );
    expect(error.message).toBe("SMS rate limit exceeded");
    await failsWith("over_sms_send_rate_limit", testAuth.auth.resend({ type: "sms", phone: "+15550100333", context }));
    await testAuth.auth.sendSmsOtp({ phone: "+15550100777", createUser: true, context });
  });
});

describe("SMS_TEST_OTP numbers", () => {
  const testOtps = { "+15550100777": "777777" };

  it("get their fixed code and no SMS, with GoTrue's message id", async () => {
    const testAuth = createTestAuth({ policy: { sms: { testOtps } } });
    expect(await testAuth.auth.sendSmsOtp({ phone: "+15550100777", createUser: true, context })).toEqual({
      messageId: "test-otp",
    });
    expect(testAuth.sms.sent).toEqual([]);
    const verified = await testAuth.auth.verify({
      type: "sms",
      proof: { phone: "+15550100777", code: "777777" },
      followedLink: false,
      context,
    });
    expect(verified.kind).toBe("session");
  });

  it("are texted a real code once SMS_TEST_OTP_VALID_UNTIL has passed", async () => {
    const testAuth = createTestAuth({
      policy: { sms: { testOtps, testOtpsValidUntil: new Date("2020-01-01T00:00:00Z") } },
    });
    const { messageId } = await testAuth.auth.sendSmsOtp({ phone: "+15550100777", createUser: true, context });
    expect(messageId).not.toBe("test-otp");
    expect((await testAuth.lastSms("+15550100777"))?.otp).toMatch(/^\d{6}$/);
  });
});

describe("phone change", () => {
  it("texts the new number, and its code moves the account there", async () => {
    const testAuth = await signedInByPhone({ policy: { email: { notifications: { phone_changed: true } } } });
    const updated = await testAuth.auth.updateUser({ principal: testAuth.principal, phone: "+15550100555", context });
    expect(updated).toMatchObject({ phone, newPhone: "+15550100555" });
    expect(updated.phoneChangeSentAt).toBeInstanceOf(Date);
    expect((await testAuth.lastSms("+15550100555"))?.kind).toBe("phone_change");

    const code = await codeFor(testAuth, "+15550100555");
    await failsWith(
      "otp_expired",
      testAuth.auth.verify({ type: "sms", proof: { phone: "+15550100555", code }, followedLink: false, context }),
    );
    const verified = await testAuth.auth.verify({
      type: "phone_change",
      proof: { phone: "+15550100555", code },
      followedLink: false,
      context,
    });
    if (verified.kind !== "session") throw new Error("expected a session");
    expect(verified.grant.user).toMatchObject({ phone: "+15550100555", newPhone: null });
    const identity = verified.grant.user.identities.find((candidate) => candidate.provider === "phone");
    expect(identity?.identityData).toMatchObject({ phone: "+15550100555", phone_verified: true });
    expect((await testAuth.emails()).filter((mail) => mail.kind === "phone_changed")).toEqual([
      { kind: "phone_changed", to: "phone-owner@example.com", phone: "+15550100555", oldPhone: phone },
    ]);
  });

  it("is sent again by /resend phone_change to the new number, and only the newest code works", async () => {
    const testAuth = await signedInByPhone();
    await testAuth.auth.updateUser({ principal: testAuth.principal, phone: "+15550100555", context });
    const first = await codeFor(testAuth, "+15550100555");
    await failsWith(
      "over_sms_send_rate_limit",
      testAuth.auth.resend({ type: "phone_change", phone: "+15550100555", context }),
    );
    testAuth.clock.advance({ seconds: 60 });
    await testAuth.auth.resend({ type: "phone_change", phone: "+15550100555", context });
    const second = await codeFor(testAuth, "+15550100555");
    expect(second).not.toBe(first);
    const proof = (code: string) => ({ phone: "+15550100555", code });
    await failsWith(
      "otp_expired",
      testAuth.auth.verify({ type: "phone_change", proof: proof(first), followedLink: false, context }),
    );
    expect(
      (await testAuth.auth.verify({ type: "phone_change", proof: proof(second), followedLink: false, context })).kind,
    ).toBe("session");
  });

  it("tells the account's email when a first number is added", async () => {
    const testAuth = createTestAuth({ policy: { email: { notifications: { phone_changed: true } } } });
    await testAuth.stores.users.insert(
      aUser({ email: "no-phone@example.com", passwordHash: await testAuth.hasher.hash(password) }),
    );
    const grant = await testAuth.auth.signInWithPassword({ email: "no-phone@example.com", password, context });
    const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
    await testAuth.auth.updateUser({ principal, phone: "+15550100555", context });
    const code = await codeFor(testAuth, "+15550100555");
    await testAuth.auth.verify({
      type: "phone_change",
      proof: { phone: "+15550100555", code },
      followedLink: false,
      context,
    });
    expect((await testAuth.emails()).filter((mail) => mail.kind === "phone_changed")).toEqual([
      { kind: "phone_changed", to: "no-phone@example.com", phone: "+15550100555", oldPhone: "" },
    ]);
  });

  it("voids a sign-in code texted to the number the account has left", async () => {
    const testAuth = await signedInByPhone({ policy: { signup: { phoneAutoconfirm: true } } });
    await testAuth.auth.sendSmsOtp({ phone, createUser: false, context });
    const code = await codeFor(testAuth, phone);
    await testAuth.auth.updateUser({ principal: testAuth.principal, phone: "+15550100555", context });
    await failsWith(
      "otp_expired",
      testAuth.auth.verify({ type: "sms", proof: { phone, code }, followedLink: false, context }),
    );
  });

  it("takes a number someone signed up with and never confirmed from them, once its owner proves it", async () => {
    const testAuth = await signedInByPhone();
    await testAuth.auth.signUp({ phone: "+15550100555", password: "squatting", context });
    const squatter = (await testAuth.stores.users.findByPhone("+15550100555"))!;
    await testAuth.auth.updateUser({ principal: testAuth.principal, phone: "+15550100555", context });
    const code = await codeFor(testAuth, "+15550100555");
    await testAuth.auth.verify({
      type: "phone_change",
      proof: { phone: "+15550100555", code },
      followedLink: false,
      context,
    });
    expect((await testAuth.stores.users.findByPhone("+15550100555"))?.id).toBe(testAuth.user.id);
    expect((await testAuth.stores.users.findById(squatter.id))?.phone).toBeNull();
    expect(await testAuth.stores.oneTimeTokens.findByUser(squatter.id, "confirmation")).toBeNull();
  });

  it("gives a number to the first of two accounts to prove it, and drops the other's claim", async () => {
    const testAuth = await signedInByPhone();
    const other = aUser({ email: "other@example.com", passwordHash: await testAuth.hasher.hash(password) });
    await testAuth.stores.users.insert(other);
    const otherGrant = await testAuth.auth.signInWithPassword({ email: "other@example.com", password, context });
    const otherPrincipal = await testAuth.auth.authenticate({ accessToken: otherGrant.accessToken });
    await testAuth.auth.updateUser({ principal: otherPrincipal, phone: "+15550100555", context });
    const othersCode = await codeFor(testAuth, "+15550100555");
    testAuth.clock.advance({ seconds: 60 });
    await testAuth.auth.updateUser({ principal: testAuth.principal, phone: "+15550100555", context });
    const code = await codeFor(testAuth, "+15550100555");
    await testAuth.auth.verify({
      type: "phone_change",
      proof: { phone: "+15550100555", code },
      followedLink: false,
      context,
    });

    expect((await testAuth.stores.users.findById(other.id))?.newPhone).toBeNull();
    const late = testAuth.auth.verify({
      type: "phone_change",
      proof: { phone: "+15550100555", code: othersCode },
      followedLink: false,
      context,
    });
    await failsWith("otp_expired", late);
  });

  it("applies at once with SMS_AUTOCONFIRM, texting nothing", async () => {
    const testAuth = await signedInByPhone({ policy: { signup: { phoneAutoconfirm: true } } });
    const updated = await testAuth.auth.updateUser({ principal: testAuth.principal, phone: "+15550100555", context });
    expect(updated).toMatchObject({ phone: "+15550100555", newPhone: null });
    expect(testAuth.sms.sent).toEqual([]);
  });
});

describe("a number the provider refuses", () => {
  it("fails a sign-in code, a phone change and a reauthentication with sms_send_failed, changing nothing", async () => {
    const { sms, state } = flakySms();
    const testAuth = await signedInByPhone({ ports: { sms } });
    state.refused.add(phone);
    state.refused.add("+15550100555");
    await failsWith("sms_send_failed", testAuth.auth.sendSmsOtp({ phone, createUser: false, context }));
    await failsWith(
      "sms_send_failed",
      testAuth.auth.updateUser({ principal: testAuth.principal, phone: "+15550100555", context }),
    );
    const user = (await testAuth.stores.users.findById(testAuth.user.id))!;
    expect(user).toMatchObject({
      newPhone: null,
      phoneChangeSentAt: null,
      confirmationSentAt: testAuth.user.confirmationSentAt,
    });
    expect(await testAuth.stores.oneTimeTokens.findByUser(user.id, "phone_change")).toBeNull();

    const phoneOnly = aUser({
      email: null,
      phone: "+15550100556",
      phoneConfirmedAt: new Date(),
      passwordHash: await testAuth.hasher.hash(password),
    });
    await testAuth.stores.users.insert(phoneOnly);
    state.refused.add("+15550100556");
    const grant = await testAuth.auth.signInWithPassword({ phone: "+15550100556", password, context });
    const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
    await failsWith("sms_send_failed", testAuth.auth.reauthenticate({ principal, context }));
    expect(await testAuth.stores.oneTimeTokens.findByUser(phoneOnly.id, "reauthentication")).toBeNull();
  });
});

describe("resend sms", () => {
  it("texts an unconfirmed signup its code again, keeping the password it chose", async () => {
    const testAuth = createTestAuth();
    await testAuth.auth.signUp({ phone, password, context });
    testAuth.clock.advance({ seconds: 60 });
    const { messageId } = await testAuth.auth.resend({ type: "sms", phone, context });
    expect(messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(testAuth.sms.sent).toHaveLength(2);
    await testAuth.auth.verify({
      type: "sms",
      proof: { phone, code: await codeFor(testAuth, phone) },
      followedLink: false,
      context,
    });
    await testAuth.auth.signInWithPassword({ phone, password, context });
  });

  it("answers a confirmed or unknown number alike, texting nothing", async () => {
    const testAuth = await signedInByPhone();
    for (const number of [phone, "+15550100999"]) {
      expect((await testAuth.auth.resend({ type: "sms", phone: number, context })).messageId).toMatch(
        /^[0-9a-f-]{36}$/,
      );
    }
    expect(testAuth.sms.sent).toEqual([]);
  });
});

describe("reauthentication by SMS", () => {
  it("texts the nonce to a user without an email, and the nonce lets the password change", async () => {
    const testAuth = createTestAuth({ policy: { passwordChangeRequiresReauthentication: true } });
    const user = aUser({
      email: null,
      phone,
      phoneConfirmedAt: new Date(),
      passwordHash: await testAuth.hasher.hash(password),
    });
    await testAuth.stores.users.insert(user);
    const grant = await testAuth.auth.signInWithPassword({ phone, password, context });
    const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
    const { messageId } = await testAuth.auth.reauthenticate({ principal, context });
    expect(messageId).toMatch(/^[0-9a-f-]{36}$/);
    const nonce = (await testAuth.lastSms(phone))!;
    expect(nonce.kind).toBe("reauthentication");
    await testAuth.auth.updateUser({ principal, password: "a brand new one", nonce: nonce.otp, context });
    await testAuth.auth.signInWithPassword({ phone, password: "a brand new one", context });
  });
});
