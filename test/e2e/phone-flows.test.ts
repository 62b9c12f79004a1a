import { startTestServer, type TestServer } from "@latchkey/server/testing";
import type { GoTrueClient } from "@supabase/auth-js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type SmsInbox, startSmsInbox } from "./sms-inbox.ts";
import { client } from "./support.ts";

const password = "correct horse battery";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A number of SMS_TEST_OTP, and its fixed code. */
const TEST_NUMBER = "+12025550170";
const TEST_CODE = "424242";

// SMS goes through the server's real Twilio adapter to a Twilio stand-in in this process, which checks every request
// as Twilio would; every code below is read out of an SMS that arrived there and typed in as a person would.
describe("phone flows with the official client", () => {
  let inbox: SmsInbox;
  let server: TestServer;
  /** The same, but with SMS_AUTOCONFIRM: a phone signup signs in at once. */
  let autoconfirming: TestServer;

  beforeAll(async () => {
    inbox = await startSmsInbox();
    const phone = {
      ...inbox.serverEnv,
      AUTH_EXTERNAL_PHONE_ENABLED: "true",
      // One second between codes to one number, so resends can be shown without long waits.
      AUTH_SMS_MAX_FREQUENCY: "1",
      // Every test here texts from one server; the default 30 an hour is not what is under test.
      AUTH_RATE_LIMIT_SMS_SENT: "1000",
    };
    [server, autoconfirming] = await Promise.all([
      startTestServer({
        ...phone,
        AUTH_SMS_TEST_OTP: `${TEST_NUMBER.slice(1)}:${TEST_CODE}`,
        AUTH_MAILER_NOTIFICATIONS_PHONE_CHANGED_ENABLED: "true",
        AUTH_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: "true",
      }),
      startTestServer({ ...phone, AUTH_SMS_AUTOCONFIRM: "true" }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([server?.close(), autoconfirming?.close()]);
    await inbox?.close();
  });
  // Every request the server made was one Twilio would have taken.
  afterEach(() => expect(inbox.problems).toEqual([]));

  const waitASecond = () => new Promise((resolve) => setTimeout(resolve, 1100));
  const attemptsTo = (phone: string) =>
    inbox.attempts.filter((attempt) => attempt.to === phone).map((attempt) => attempt.status);
  const otherThan = (code: string | undefined) => (code === "000000" ? "111111" : "000000");

  /** A user signed up with `phone` and a password, confirmed by the texted code, signed in on the client returned. */
  async function signedUpByPhone(phone: string): Promise<{ auth: GoTrueClient; id: string; code: string }> {
    const auth = client(server);
    expect((await auth.signUp({ phone, password })).error).toBeNull();
    const sms = await inbox.waitFor(phone);
    const { data, error } = await auth.verifyOtp({ phone, token: sms.code!, type: "sms" });
    expect(error).toBeNull();
    return { auth, id: data.user!.id, code: sms.code! };
  }

  it("signs up with a phone and password, confirms by the texted code, then signs in with the password", async () => {
    const phone = "+12025550101";
    const auth = client(server);
    const { data, error } = await auth.signUp({ phone, password });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    expect(data.user).toMatchObject({ phone, email: "" });
    expect(data.user?.phone_confirmed_at).toBeUndefined();
    expect(data.user?.identities?.map((identity) => identity.provider)).toEqual(["phone"]);

    const sms = await inbox.waitFor(phone);
    expect(sms.code).toMatch(/^\d{6}$/);
    expect(sms.body).toBe(`Your code is ${sms.code}`);
    expect((await client(server).signInWithPassword({ phone, password })).error?.code).toBe("phone_not_confirmed");

    const wrong = await auth.verifyOtp({ phone, token: otherThan(sms.code), type: "sms" });
    expect(wrong.error?.code).toBe("otp_expired");
    expect(wrong.error?.status).toBe(403);
    expect(wrong.data.session).toBeNull();

    const verified = await auth.verifyOtp({ phone, token: sms.code!, type: "sms" });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ id: data.user!.id, phone });
    expect(verified.data.user?.phone_confirmed_at).toBeTruthy();
    expect((await auth.getSession()).data.session?.access_token).toBe(verified.data.session?.access_token);
    // A code works once.
    expect((await client(server).verifyOtp({ phone, token: sms.code!, type: "sms" })).error?.code).toBe("otp_expired");

    const signedIn = await client(server).signInWithPassword({ phone, password });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user?.id).toBe(data.user!.id);
    expect((await client(server).signInWithPassword({ phone, password: "not the password" })).error?.code).toBe(
      "invalid_credentials",
    );
  });

  it("signs up an unknown number with signInWithOtp, and its texted code confirms and signs in", async () => {
    const phone = "+12025550102";
    const auth = client(server);
    const { data, error } = await auth.signInWithOtp({ phone, options: { data: { source: "sms" } } });
    expect(error).toBeNull();
    expect(data.messageId).toMatch(UUID);
    const sms = await inbox.waitFor(phone);
    expect(sms.body).toBe(`Your code is ${sms.code}`);
    // Texted within the request, and logged as the outbox worker's deliveries are: by kind and id alone.
    const delivered = server
      .logLines()
      .filter((line) => line["msg"] === "message delivered" && line["message_id"] === data.messageId);
    expect(delivered).toEqual([expect.objectContaining({ level: 30, channel: "sms", kind: "otp" })]);
    expect(JSON.stringify(delivered)).not.toContain(phone.slice(1));
    expect(JSON.stringify(delivered)).not.toContain(sms.code);

    const verified = await auth.verifyOtp({ phone, token: sms.code!, type: "sms" });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ phone, user_metadata: { source: "sms" } });
    expect(verified.data.user?.phone_confirmed_at).toBeTruthy();
    expect((await auth.getUser()).data.user?.phone).toBe(phone);
  });

  it("sends signInWithOtp's and signUp's codes by WhatsApp through Twilio when the client asks: To is whatsapp:+<number>", async () => {
    const phone = "+12025550120";
    const auth = client(server);
    const { data, error } = await auth.signInWithOtp({ phone, options: { channel: "whatsapp" } });
    expect(error).toBeNull();
    expect(data.messageId).toMatch(UUID);
    const message = await inbox.waitFor(phone);
    expect(message.channel).toBe("whatsapp");
    expect(attemptsTo(phone)).toEqual([201]);
    const verified = await auth.verifyOtp({ phone, token: message.code!, type: "sms" });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.phone).toBe(phone);

    const other = "+12025550121";
    expect(
      (await client(server).signUp({ phone: other, password, options: { channel: "whatsapp" } })).error,
    ).toBeNull();
    expect((await inbox.waitFor(other)).channel).toBe("whatsapp");
  });

  it("signs an existing confirmed number in with signInWithOtp and the texted code", async () => {
    const phone = "+12025550103";
    const { id, code: signupCode } = await signedUpByPhone(phone);
    await waitASecond();

    const auth = client(server);
    const { data, error } = await auth.signInWithOtp({ phone, options: { shouldCreateUser: false } });
    expect(error).toBeNull();
    expect(data.messageId).toMatch(UUID);
    const sms = await inbox.waitFor(phone, (candidate) => candidate.code !== signupCode);
    const verified = await auth.verifyOtp({ phone, token: sms.code!, type: "sms" });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.user.id).toBe(id);
  });

  it("refuses signInWithOtp without creating for an unknown number with otp_disabled, as Supabase does, and texts it nothing", async () => {
    const known = "+12025550104";
    await signedUpByPhone(known);
    const unknown = "+12025550105";
    const forUnknown = await client(server).signInWithOtp({ phone: unknown, options: { shouldCreateUser: false } });
    await waitASecond();
    const forKnown = await client(server).signInWithOtp({ phone: known, options: { shouldCreateUser: false } });

    expect(forUnknown.error).toMatchObject({
      status: 422,
      code: "otp_disabled",
      message: "Signups not allowed for otp",
    });
    expect(forKnown.error).toBeNull();
    expect(forKnown.data.messageId).toMatch(UUID);
    await inbox.waitFor(known, (sms) => inbox.to(known).indexOf(sms) === 1);
    expect(attemptsTo(unknown)).toEqual([]);
    expect(await server.db.stores.users.findByPhone(unknown)).toBeNull();
  });

  it("moves a signed-in user to a new number once the code texted there is verified as phone_change", async () => {
    const [oldPhone, newPhone] = ["+12025550106", "+12025550107"];
    const { auth, id } = await signedUpByPhone(oldPhone);

    const { data, error } = await auth.updateUser({ phone: newPhone });
    expect(error).toBeNull();
    // auth-js's User type has no phone_change_sent_at, but the server sends it as GoTrue does.
    expect(data.user).toMatchObject({
      id,
      phone: oldPhone,
      new_phone: newPhone,
      phone_change_sent_at: expect.any(String),
    });
    const sms = await inbox.waitFor(newPhone);
    expect(sms.body).toBe(`Your code is ${sms.code}`);
    expect(inbox.to(oldPhone)).toHaveLength(1);

    const verified = await auth.verifyOtp({ phone: newPhone, token: sms.code!, type: "phone_change" });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ id, phone: newPhone });
    expect(verified.data.user?.new_phone).toBeUndefined();
    expect((await auth.getUser()).data.user?.phone).toBe(newPhone);
    expect((await client(server).signInWithPassword({ phone: newPhone, password })).data.user?.id).toBe(id);
    expect((await client(server).signInWithPassword({ phone: oldPhone, password })).error?.code).toBe(
      "invalid_credentials",
    );
  });

  it("tells the user's email address when a phone number is added, and when it changes", async () => {
    const email = "phone-owner@example.com";
    const [firstPhone, secondPhone] = ["+12025550108", "+12025550109"];
    const auth = client(server);
    await auth.signUp({ email, password });
    expect(
      (await auth.verifyOtp({ email, token: (await server.mail.waitFor(email)).code!, type: "signup" })).error,
    ).toBeNull();

    await auth.updateUser({ phone: firstPhone });
    const first = await inbox.waitFor(firstPhone);
    expect(
      (await auth.verifyOtp({ phone: firstPhone, token: first.code!, type: "phone_change" })).data.user?.phone,
    ).toBe(firstPhone);

    await auth.updateUser({ phone: secondPhone });
    const second = await inbox.waitFor(secondPhone);
    const { data, error } = await auth.verifyOtp({ phone: secondPhone, token: second.code!, type: "phone_change" });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email, phone: secondPhone });

    const notices = () => server.mail.to(email).filter((m) => m.subject === "Your phone number was changed");
    await server.mail.waitFor(email, () => notices().length === 2);
    // Delivered by the outbox, not necessarily in the order they were queued.
    const texts = notices().map((m) => m.text ?? "");
    expect(
      texts.filter((text) => text.includes(`The phone number ${firstPhone} was added to your account`)),
    ).toHaveLength(1);
    expect(texts.filter((text) => text.includes(`was changed from ${firstPhone} to ${secondPhone}`))).toHaveLength(1);
    for (const text of texts) expect(text).not.toContain(second.code);
  });

  it("texts the signup code again with resend, only the newest works, and a resend too soon gets 429", async () => {
    const phone = "+12025550110";
    const auth = client(server);
    await auth.signUp({ phone, password });
    const first = await inbox.waitFor(phone);
    await waitASecond();

    const { data, error } = await auth.resend({ type: "sms", phone });
    expect(error).toBeNull();
    expect(data.messageId).toMatch(UUID);
    const second = await inbox.waitFor(phone, (sms) => sms.code !== first.code);

    const tooSoon = await auth.resend({ type: "sms", phone });
    expect(tooSoon.error?.status).toBe(429);
    expect(tooSoon.error?.code).toBe("over_sms_send_rate_limit");
    expect(attemptsTo(phone)).toEqual([201, 201]);

    expect((await auth.verifyOtp({ phone, token: first.code!, type: "sms" })).error?.code).toBe("otp_expired");
    const verified = await auth.verifyOtp({ phone, token: second.code!, type: "sms" });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.phone).toBe(phone);
    // The resent code carries the signup's password.
    expect((await client(server).signInWithPassword({ phone, password })).error).toBeNull();
  });

  it("texts the phone change code again with resend, and only the newest works", async () => {
    const [oldPhone, newPhone] = ["+12025550111", "+12025550112"];
    const { auth, id } = await signedUpByPhone(oldPhone);
    await auth.updateUser({ phone: newPhone });
    const first = await inbox.waitFor(newPhone);
    expect((await auth.resend({ type: "phone_change", phone: newPhone })).error?.code).toBe("over_sms_send_rate_limit");
    await waitASecond();

    const { error } = await auth.resend({ type: "phone_change", phone: newPhone });
    expect(error).toBeNull();
    const second = await inbox.waitFor(newPhone, (sms) => sms.code !== first.code);
    expect(inbox.to(newPhone)).toHaveLength(2);

    expect((await auth.verifyOtp({ phone: newPhone, token: first.code!, type: "phone_change" })).error?.code).toBe(
      "otp_expired",
    );
    const verified = await auth.verifyOtp({ phone: newPhone, token: second.code!, type: "phone_change" });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ id, phone: newPhone });
  });

  it("texts the reauthentication nonce to a user who has only a phone, and the nonce allows the password change", async () => {
    const phone = "+12025550113";
    const { auth, code: signupCode } = await signedUpByPhone(phone);
    expect((await auth.updateUser({ password: "another secret" })).error?.code).toBe("reauthentication_needed");

    expect((await auth.reauthenticate()).error).toBeNull();
    const sms = await inbox.waitFor(phone, (candidate) => candidate.code !== signupCode);
    expect(sms.body).toBe(`Your code is ${sms.code}`);
    expect((await auth.updateUser({ password: "another secret", nonce: otherThan(sms.code) })).error?.code).toBe(
      "reauthentication_not_valid",
    );
    expect((await auth.updateUser({ password: "another secret", nonce: sms.code! })).error).toBeNull();

    expect((await client(server).signInWithPassword({ phone, password })).error?.code).toBe("invalid_credentials");
    expect((await client(server).signInWithPassword({ phone, password: "another secret" })).error).toBeNull();
  });

  it("answers a duplicate signup of a confirmed number with a made-up user and texts nothing", async () => {
    const phone = "+12025550114";
    const { id } = await signedUpByPhone(phone);
    await waitASecond();

    const { data, error } = await client(server).signUp({ phone, password: "someone else's choice" });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    expect(data.user).toMatchObject({ phone, identities: [] });
    expect(data.user?.id).not.toBe(id);
    await waitASecond();
    expect(attemptsTo(phone)).toEqual([201]);
    expect((await client(server).signInWithPassword({ phone, password: "someone else's choice" })).error?.code).toBe(
      "invalid_credentials",
    );
  });

  it("refuses a duplicate phone signup with 400 user_already_exists when SMS_AUTOCONFIRM signs signups straight in", async () => {
    const phone = "+12025550115";
    const first = await client(autoconfirming).signUp({ phone, password });
    expect(first.error).toBeNull();
    expect(first.data.session?.user).toMatchObject({ phone });
    expect(first.data.user?.phone_confirmed_at).toBeTruthy();

    const { data, error } = await client(autoconfirming).signUp({ phone, password: "someone else's choice" });
    expect(error?.status).toBe(400);
    expect(error?.code).toBe("user_already_exists");
    expect(error?.message).toBe("User already registered");
    expect(data.session).toBeNull();
    expect(attemptsTo(phone)).toEqual([]);
  });

  it("gives a number of SMS_TEST_OTP its fixed code and message id test-otp, and texts it nothing", async () => {
    const auth = client(server);
    const { data, error } = await auth.signInWithOtp({ phone: TEST_NUMBER });
    expect(error).toBeNull();
    expect(data.messageId).toBe("test-otp");

    expect((await auth.verifyOtp({ phone: TEST_NUMBER, token: otherThan(TEST_CODE), type: "sms" })).error?.code).toBe(
      "otp_expired",
    );
    const verified = await auth.verifyOtp({ phone: TEST_NUMBER, token: TEST_CODE, type: "sms" });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.phone).toBe(TEST_NUMBER);
    await waitASecond();
    expect(attemptsTo(TEST_NUMBER)).toEqual([]);
  });

  it("fails a signup whose number the provider refuses with sms_send_failed, echoes nothing of it, and keeps nothing", async () => {
    const phone = "+12025550116";
    inbox.refuse(phone);
    const { data, error } = await client(server).signUp({ phone, password });
    expect(error?.status).toBe(422);
    expect(error?.code).toBe("sms_send_failed");
    expect(error?.message).toBe("Error sending confirmation OTP to provider");
    for (const leaked of ["21211", "valid phone number", "twilio", phone, phone.slice(1), inbox.accountSid]) {
      expect(error?.message.toLowerCase()).not.toContain(leaked.toLowerCase());
    }
    expect(data.user).toBeNull();
    expect(attemptsTo(phone)).toEqual([400]);
    expect(await server.db.stores.users.findByPhone(phone)).toBeNull();

    inbox.accept(phone);
    await waitASecond();
    const again = await client(server).signUp({ phone, password });
    expect(again.error).toBeNull();
    const created = await server.db.stores.users.findByPhone(phone);
    expect(created?.id).toBe(again.data.user?.id);
    const sms = await inbox.waitFor(phone);
    const verified = await client(server).verifyOtp({ phone, token: sms.code!, type: "sms" });
    expect(verified.data.user?.id).toBe(again.data.user?.id);
  });

  it("answers signInWithOtp while the provider is unavailable, and texts the code once it is back, exactly once", async () => {
    const phone = "+12025550117";
    const restore = inbox.unavailable();
    const auth = client(server);
    const { data, error } = await auth.signInWithOtp({ phone });
    restore();
    expect(error).toBeNull();
    expect(data.messageId).toMatch(UUID);
    expect(attemptsTo(phone)).toEqual([503]);
    expect(inbox.to(phone)).toEqual([]);

    const sms = await inbox.waitFor(phone);
    const verified = await auth.verifyOtp({ phone, token: sms.code!, type: "sms" });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.phone).toBe(phone);
    // Give a second delivery every chance to show up.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(attemptsTo(phone)).toEqual([503, 201]);
  });

  it("takes numbers with spaces, dashes or without the + and keeps them as E.164", async () => {
    const phone = "+12025550118";
    const auth = client(server);
    const { data, error } = await auth.signUp({ phone: "+1 202-555-0118", password });
    expect(error).toBeNull();
    expect(data.user?.phone).toBe(phone);
    const sms = await inbox.waitFor(phone);

    const verified = await auth.verifyOtp({ phone: "12025550118", token: sms.code!, type: "sms" });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.phone).toBe(phone);
    expect((await client(server).signInWithPassword({ phone: "1 202 555 0118", password })).data.user?.phone).toBe(
      phone,
    );
    await waitASecond();
    expect((await client(server).signInWithOtp({ phone: "1-202-555-0118" })).error).toBeNull();
    expect((await inbox.waitFor(phone, (candidate) => candidate !== sms)).to).toBe(phone);
    expect((await client(server).signUp({ phone: "+1 (202) 555-0118", password })).error?.code).toBe(
      "validation_failed",
    );
  });
});
