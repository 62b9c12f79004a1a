import { randomBytes } from "node:crypto";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKeepingFunction, httpHook, type Receiver, secretOf, startReceiver } from "./hooks-support.ts";
import { adminApi, client } from "./support.ts";

// GoTrue's send_email and send_sms hooks end to end, through the official client: every link token and code below is
// read out of what the hook was sent (a receiver that checks every call's Standard Webhooks signature, or a function
// in the server's own database) and used as an app's own mailer or SMS sender would have a person use it. With the
// hook on, nothing goes to SMTP.

const password = "correct horse battery";
const address = (name: string) => `${name}-${randomBytes(4).toString("hex")}@example.com`;
/** A US number of the 555-01xx range nobody else in this file uses. */
const phoneNumber = () => `+1202555${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** GoTrue's `email_data`, every field a string. */
const EMAIL_DATA_FIELDS = [
  "token",
  "token_hash",
  "redirect_to",
  "email_action_type",
  "site_url",
  "token_new",
  "token_hash_new",
  "old_email",
  "old_phone",
  "provider",
  "factor_type",
];

describe("the send_email hook over HTTP", () => {
  const secret = secretOf();
  let receiver: Receiver;
  let server: TestServer;
  /** Addresses whose first call the receiver answers 500 (and then 204). */
  const failedOnce = new Set<string>();

  beforeAll(async () => {
    receiver = await startReceiver(secret);
    receiver.on("/send-email", (payload) => {
      const email = String(payload["user"]?.["email"]);
      if (email.startsWith("refused")) return { status: 200, body: { error: { http_code: 400, message: "no" } } };
      if (email.startsWith("flaky") && !failedOnce.has(email)) {
        failedOnce.add(email);
        return { status: 500, body: { oops: true } };
      }
      return { status: 204 };
    });
    server = await startTestServer({
      AUTH_URI_ALLOW_LIST: "http://localhost:3000/**",
      // One second between mails of a kind to an address, so that one address can be mailed twice quickly.
      AUTH_SMTP_MAX_FREQUENCY: "1",
      ...httpHook(receiver, "SEND_EMAIL", "/send-email", secret),
    });
  });
  afterEach(() => {
    // The hook sends every mail: the SMTP server the server could deliver to heard of none.
    expect(server.mail.messages).toEqual([]);
    expect(receiver.calls.every((call) => call.verified)).toBe(true);
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  /** The call for `email` of `action` (email_action_type), arrived or arriving. */
  const mailFor = (email: string, action: string, timeoutMs?: number) =>
    receiver.waitFor(
      "/send-email",
      (call) =>
        call.payload["user"]?.["email"] === email && call.payload["email_data"]?.["email_action_type"] === action,
      timeoutMs,
    );
  const callsFor = (email: string) =>
    receiver.callsTo("/send-email").filter((call) => call.payload["user"]?.["email"] === email);

  /** A user signed up and confirmed by the token_hash the hook was sent; signed in on the client returned. */
  async function confirmedUser(name: string) {
    const auth = client(server);
    const email = address(name);
    expect((await auth.signUp({ email, password })).error).toBeNull();
    const { payload } = await mailFor(email, "signup");
    const { data, error } = await auth.verifyOtp({ token_hash: payload["email_data"]["token_hash"], type: "signup" });
    expect(error).toBeNull();
    return { auth, email, id: data.user!.id };
  }

  it("sends a signup's confirmation to the hook, signed, whose token_hash confirms and signs in", async () => {
    const auth = client(server);
    const email = address("signup");
    const { data, error } = await auth.signUp({
      email,
      password,
      options: { emailRedirectTo: "http://localhost:3000/welcome", data: { plan: "pro" } },
    });
    expect(error).toBeNull();
    expect(data.session).toBeNull();

    const call = await mailFor(email, "signup");
    expect(call.verified).toBe(true);
    expect(call.webhookId).toBeTruthy();
    const { payload } = call;
    expect(Object.keys(payload).sort()).toEqual(["email_data", "metadata", "user"]);
    expect(payload["metadata"]).toMatchObject({ name: "send-email" });
    expect(payload["user"]).toMatchObject({
      id: data.user!.id,
      email,
      aud: "authenticated",
      user_metadata: { plan: "pro" },
    });
    const emailData = payload["email_data"];
    expect(Object.keys(emailData).sort()).toEqual([...EMAIL_DATA_FIELDS].sort());
    expect(emailData).toMatchObject({
      email_action_type: "signup",
      token: expect.stringMatching(/^\d{6}$/),
      token_hash: expect.stringMatching(/^.{20,}$/),
      redirect_to: "http://localhost:3000/welcome",
      site_url: server.config.api.externalUrl,
      token_new: "",
      token_hash_new: "",
    });
    // The hash is no spelling of the code.
    expect(emailData["token_hash"]).not.toContain(emailData["token"]);

    const verified = await auth.verifyOtp({ token_hash: emailData["token_hash"], type: "signup" });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.user).toMatchObject({ id: data.user!.id, email });
    expect(verified.data.user?.email_confirmed_at).toBeTruthy();
    expect((await auth.getUser()).data.user?.email).toBe(email);
    // Once.
    expect(callsFor(email)).toHaveLength(1);
  });

  it("sends a magic link's code, which verifyOtp with type email takes, and an unknown address's signup", async () => {
    const { email } = await confirmedUser("magic");
    const auth = client(server);
    expect((await auth.signInWithOtp({ email, options: { shouldCreateUser: false } })).error).toBeNull();
    const { payload } = await mailFor(email, "magiclink");
    expect(payload["email_data"]).toMatchObject({
      token: expect.stringMatching(/^\d{6}$/),
      token_hash: expect.any(String),
      site_url: server.config.api.externalUrl,
    });
    const { data, error } = await auth.verifyOtp({ email, token: payload["email_data"]["token"], type: "email" });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);

    // An address nobody has: signInWithOtp signs it up, and the hook is sent a signup, whose code signs in.
    const newcomer = address("otp-new");
    const other = client(server);
    expect((await other.signInWithOtp({ email: newcomer })).error).toBeNull();
    const signup = await mailFor(newcomer, "signup");
    const confirmed = await other.verifyOtp({
      email: newcomer,
      token: signup.payload["email_data"]["token"],
      type: "email",
    });
    expect(confirmed.error).toBeNull();
    expect(confirmed.data.session?.user.email).toBe(newcomer);
  });

  it("sends a recovery, whose token_hash signs in to set a new password", async () => {
    const { email } = await confirmedUser("forgot");
    const auth = client(server);
    expect((await auth.resetPasswordForEmail(email, { redirectTo: "http://localhost:3000/reset" })).error).toBeNull();
    const { payload } = await mailFor(email, "recovery");
    expect(payload["email_data"]).toMatchObject({
      email_action_type: "recovery",
      token: expect.stringMatching(/^\d{6}$/),
      redirect_to: "http://localhost:3000/reset",
      site_url: server.config.api.externalUrl,
    });
    const { data, error } = await auth.verifyOtp({ token_hash: payload["email_data"]["token_hash"], type: "recovery" });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
    expect((await auth.updateUser({ password: "a brand new secret" })).error).toBeNull();
    expect((await client(server).signInWithPassword({ email, password: "a brand new secret" })).error).toBeNull();
  });

  it("sends an email change as one call with both addresses' tokens; both link tokens complete it", async () => {
    const { auth, email, id } = await confirmedUser("mover");
    const moved = address("moved");
    const { data, error } = await auth.updateUser({ email: moved });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email, new_email: moved });

    const call = await mailFor(email, "email_change");
    expect(call.verified).toBe(true);
    expect(call.payload["user"]).toMatchObject({ id, email, new_email: moved });
    const emailData = call.payload["email_data"];
    expect(emailData).toMatchObject({
      token: expect.stringMatching(/^\d{6}$/),
      token_new: expect.stringMatching(/^\d{6}$/),
      token_hash: expect.stringMatching(/^.{20,}$/),
      token_hash_new: expect.stringMatching(/^.{20,}$/),
      site_url: server.config.api.externalUrl,
    });
    expect(emailData["token_hash"]).not.toBe(emailData["token_hash_new"]);
    // One call, not one per address: nothing more comes.
    await sleep(2_500);
    expect(
      receiver
        .callsTo("/send-email")
        .filter(
          (each) =>
            each.payload["user"]?.["id"] === id && each.payload["email_data"]?.["email_action_type"] === "email_change",
        ),
    ).toHaveLength(1);

    const first = await auth.verifyOtp({ token_hash: emailData["token_hash"], type: "email_change" });
    expect(first.error).toBeNull();
    expect((await auth.getUser()).data.user?.email).toBe(email);
    const second = await auth.verifyOtp({ token_hash: emailData["token_hash_new"], type: "email_change" });
    expect(second.error).toBeNull();
    expect(second.data.user?.email).toBe(moved);
    expect((await auth.getUser()).data.user?.email).toBe(moved);
    expect((await client(server).signInWithPassword({ email: moved, password })).error).toBeNull();
  });

  it("pairs an email change's codes as GoTrue does: token the current address's, token_new the new one's", async () => {
    const { auth, email, id } = await confirmedUser("coder");
    const moved = address("coded");
    expect((await auth.updateUser({ email: moved })).error).toBeNull();
    const { payload } = await mailFor(email, "email_change");
    const emailData = payload["email_data"];
    expect(
      (await auth.verifyOtp({ email: moved, token: emailData["token_new"], type: "email_change" })).error,
    ).toBeNull();
    const last = await auth.verifyOtp({ email, token: emailData["token"], type: "email_change" });
    expect(last.error).toBeNull();
    expect(last.data.user).toMatchObject({ id, email: moved });
  });

  it("tries again a mail the hook failed with a 500, with the same webhook-id, and its token then works", async () => {
    const auth = client(server);
    const email = address("flaky");
    expect((await auth.signUp({ email, password })).error).toBeNull();
    const first = await mailFor(email, "signup");
    const again = await receiver.waitFor(
      "/send-email",
      (call) => call.payload["user"]?.["email"] === email && call !== first,
      15_000,
    );
    expect(again.verified).toBe(true);
    expect(again.webhookId).toBe(first.webhookId);
    // The outbox's first retry, about 2 s later.
    expect(again.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(1_500);
    // Delivered: no third call.
    await sleep(3_000);
    expect(callsFor(email)).toHaveLength(2);
    const { data, error } = await auth.verifyOtp({
      token_hash: again.payload["email_data"]["token_hash"],
      type: "signup",
    });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
  });

  it("does not try again a mail the hook refused with an error of its own of 4xx", async () => {
    const email = address("refused");
    // The mail goes after the answer: the signup itself succeeded.
    expect((await client(server).signUp({ email, password })).error).toBeNull();
    await mailFor(email, "signup");
    await sleep(5_000);
    expect(callsFor(email)).toHaveLength(1);
  });
});

describe("the send_sms hook over HTTP", () => {
  const secret = secretOf();
  let receiver: Receiver;
  let server: TestServer;
  const blocked = new Set<string>();

  beforeAll(async () => {
    receiver = await startReceiver(secret);
    receiver.on("/send-sms", (payload) =>
      blocked.has(payload["sms"]?.["phone"])
        ? { status: 200, body: { error: { http_code: 403, message: "blocked" } } }
        : { status: 204 },
    );
    server = await startTestServer({
      AUTH_EXTERNAL_PHONE_ENABLED: "true",
      AUTH_SMS_MAX_FREQUENCY: "1",
      ...httpHook(receiver, "SEND_SMS", "/send-sms", secret),
    });
  });
  afterEach(() => {
    expect(receiver.calls.every((call) => call.verified)).toBe(true);
    expect(server.mail.messages).toEqual([]);
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });
  const callsFor = (phone: string) =>
    receiver.callsTo("/send-sms").filter((call) => call.payload["sms"]?.["phone"] === phone);

  it("sends a phone sign-in's code to the hook within the request, which verifyOtp takes", async () => {
    const phone = phoneNumber();
    const auth = client(server);
    const { data: sent, error } = await auth.signInWithOtp({ phone });
    expect(error).toBeNull();
    // Texted within the request: there when it answers.
    const [call] = callsFor(phone);
    expect(call).toBeDefined();
    expect(call!.verified).toBe(true);
    // The message's id: what the answer gave, and the webhook-id.
    expect(call!.webhookId).toBe(sent.messageId);
    const { payload } = call!;
    expect(Object.keys(payload).sort()).toEqual(["metadata", "sms", "user"]);
    expect(payload["metadata"]).toMatchObject({ name: "send-sms" });
    // E.164 with its `+`, as every answer of the API gives a number (docs/compatibility.md, SMS).
    expect(payload["user"]).toMatchObject({ phone });
    expect(payload["sms"]).toEqual({ otp: expect.stringMatching(/^\d{6}$/), phone });

    const { data, error: verifyError } = await auth.verifyOtp({ phone, token: payload["sms"]["otp"], type: "sms" });
    expect(verifyError).toBeNull();
    expect(data.session?.user.phone).toBe(phone);
    expect(data.user?.phone_confirmed_at).toBeTruthy();
    // Delivered within the request: the outbox does not send it again.
    await sleep(2_500);
    expect(callsFor(phone)).toHaveLength(1);
  });

  it("fails the sign-in with the hook's own status and words when it refuses the SMS", async () => {
    const phone = phoneNumber();
    blocked.add(phone);
    const { data, error } = await client(server).signInWithOtp({ phone });
    expect(error).toMatchObject({ status: 403, message: "blocked" });
    expect(data.session ?? null).toBeNull();
    expect(callsFor(phone)).toHaveLength(1);
    // Refused for good: not tried again, and the user it would have created is not there.
    await sleep(3_000);
    expect(callsFor(phone)).toHaveLength(1);
    const { data: listed } = await (await adminApi(server)).listUsers({ perPage: 1000 });
    expect(listed.users.map((user) => user.phone)).not.toContain(phone);
  });
});

describe("the send_email hook as a Postgres function", () => {
  let server: TestServer;
  const schema = `hooks_${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    server = await startTestServer({
      AUTH_HOOK_SEND_EMAIL_ENABLED: "true",
      AUTH_HOOK_SEND_EMAIL_URI: `pg-functions://postgres/${schema}/send_email`,
    });
    // An app that mails from its own database: the function keeps what it is sent, for a job of the app's.
    await createKeepingFunction(server, { schema, name: "send_email", table: "outgoing" });
  });
  afterAll(async () => {
    await server?.db.db.execute(sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    await server?.close();
  });

  /** The events the function was given for `email`, waiting up to 10 s for the first. */
  async function eventsFor(email: string): Promise<Record<string, any>[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const result = await server.db.db.execute(
        sql.raw(`SELECT event FROM ${schema}.outgoing WHERE event->'user'->>'email' = '${email}' ORDER BY id`),
      );
      const rows = (result as unknown as { rows: { event: Record<string, any> | string }[] }).rows;
      const events = rows.map((row) => (typeof row.event === "string" ? JSON.parse(row.event) : row.event));
      if (events.length > 0 || Date.now() > deadline) return events;
      await sleep(50);
    }
  }

  it("gives the function the signup's mail, whose token_hash confirms and signs in", async () => {
    const auth = client(server);
    const email = address("pg");
    const { data, error } = await auth.signUp({ email, password });
    expect(error).toBeNull();
    const events = await eventsFor(email);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      metadata: { name: "send-email" },
      user: { id: data.user!.id, email },
      email_data: {
        email_action_type: "signup",
        token: expect.stringMatching(/^\d{6}$/),
        site_url: server.config.api.externalUrl,
      },
    });
    const verified = await auth.verifyOtp({ token_hash: events[0]!["email_data"]["token_hash"], type: "signup" });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.user.email).toBe(email);
    expect(server.mail.messages).toEqual([]);
  });
});
