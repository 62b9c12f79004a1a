import { describe, expect, it } from "vitest";
import type { AdminPrincipal, Principal, SessionGrant } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { hookError } from "../../model/hook-answer.ts";
import { FIRST_RETRY_SECONDS } from "../../model/outbox.ts";
import { presentUser } from "../../model/user-json.ts";
import type { HookAnswer, HookCaller, HookCallOptions, HookPayload } from "../../ports/hooks.ts";
import type { Stores } from "../../ports/stores.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth, type TestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { FakeOAuthProvider, fakeProfile, providerEmail } from "../../testing/fake-oauth-provider.ts";
import { linkThroughProvider } from "../../testing/link-through-provider.ts";
import { totpCode, totpStep } from "../../testing/test-totp.ts";

// The send_email and send_sms hooks: with either on, every message of its channel goes to the hook, with GoTrue's
// payload and the outbox id as its message id, and never to the mailer or the SMS provider. The hooks here are
// scripted HookCallers that record what they are sent and answer as told.

const password = "s3cret-pass";
const phone = "+15550100000";
const admin: AdminPrincipal = { role: "service_role", userId: null, claims: {} };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SIX_DIGITS = /^\d{6}$/;

/** A payload as JSON: read field by field. */
type Json = any;

/**
 * How the hook answers one call: `ok` (nothing: HTTP 204), `timeout` (no answer in time), `refuse` (its own error,
 * http_code 400), `down` (its own error, http_code 503).
 */
type Answer = "ok" | "timeout" | "refuse" | "down" | "out_of_time";

/** A hook that records every payload (as sent over the wire) with the call's message id, and answers as scripted. */
class RecordingHook implements HookCaller {
  readonly uri = "https://hooks.example/send";
  readonly calls: { payload: Json; messageId: string | undefined }[] = [];
  /** The answers to the next calls, one each, in order; `ok` once they run out. */
  answers: Answer[] = [];

  async call(payload: HookPayload, _stores: Stores, options?: HookCallOptions): Promise<HookAnswer> {
    this.calls.push({ payload: JSON.parse(JSON.stringify(payload)), messageId: options?.messageId });
    const answer = this.answers.shift() ?? "ok";
    if (answer === "timeout") {
      throw new AuthError("hook_timeout", "Failed to reach hook within maximum time of 5.000000 seconds");
    }
    if (answer === "refuse") throw hookError(400, "no");
    if (answer === "down") throw hookError(503, "down for maintenance");
    // A function hook cut short by the request's own deadline: the database's failure, not the hook's.
    if (answer === "out_of_time") throw new AuthError("request_timeout", "Processing this request timed out");
    return null;
  }

  get last(): { payload: Json; messageId: string | undefined } {
    const last = this.calls.at(-1);
    if (!last) throw new Error("the hook was not called");
    return last;
  }

  /** The email_data of every call, by email_action_type. */
  ofType(type: string): Json[] {
    return this.calls.map((call) => call.payload).filter((payload) => payload.email_data?.email_action_type === type);
  }
}

function withSendHooks(options: TestAuthOptions = {}) {
  const emailHook = new RecordingHook();
  const smsHook = new RecordingHook();
  const github = new FakeOAuthProvider({
    profile: fakeProfile("gh-1", [providerEmail("ada@github.example", true)], { user_name: "ada" }),
  });
  const testAuth = createTestAuth({
    policy: { redirect: { allowList: ["https://app.example.com/**"] }, ...options.policy },
    ports: {
      oauthProviders: new Map([[github.name, github]]),
      ...options.ports,
      hooks: { send_email: emailHook, send_sms: smsHook },
    },
  });
  return { ...testAuth, emailHook, smsHook, github };
}
type WithSendHooks = ReturnType<typeof withSendHooks>;

/** Every field of GoTrue's email_data, empty unless given; redirect_to SITE_URL, GoTrue's referrer, unless given. */
function emailData(fields: Record<string, unknown>) {
  return {
    token: "",
    token_hash: "",
    redirect_to: "http://localhost:3000",
    email_action_type: "",
    site_url: "http://localhost:9999",
    token_new: "",
    token_hash_new: "",
    old_email: "",
    old_phone: "",
    provider: "",
    factor_type: "",
    ...fields,
  };
}

/** A confirmed account with a password (and `phone`, confirmed, when given), signed in. */
async function signedIn(testAuth: TestAuth, overrides: Parameters<typeof aUser>[0] = {}) {
  const user = aUser({ email: "ada@example.com", passwordHash: await testAuth.hasher.hash(password), ...overrides });
  await testAuth.stores.users.insert(user);
  const grant =
    user.email !== null
      ? await testAuth.auth.signInWithPassword({ email: user.email, password, context })
      : await testAuth.auth.signInWithPassword({ phone: user.phone!, password, context });
  const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
  return { user, grant, principal };
}

const principalOf = (testAuth: TestAuth, grant: SessionGrant): Promise<Principal> =>
  testAuth.auth.authenticate({ accessToken: grant.accessToken });

async function sessionFrom(testAuth: TestAuth, input: Parameters<TestAuth["auth"]["verify"]>[0]) {
  const verified = await testAuth.auth.verify(input);
  if (verified.kind !== "session") throw new Error(`expected a session, got ${verified.kind}`);
  return verified.grant;
}

/** The user as GoTrue's JSON, through the wire. */
const json = (value: unknown): Json => JSON.parse(JSON.stringify(value));

describe("send_email: every mail goes to the hook, none to the mailer", () => {
  it("a signup's confirmation: the code and link token, redirect_to, site_url, and the user with the data it chose", async () => {
    const testAuth = withSendHooks();
    const result = await testAuth.auth.signUp({
      email: "new@example.com",
      password,
      data: { plan: "pro" },
      redirectTo: ["https://app.example.com/welcome"],
      context,
    });
    if (result.kind !== "user") throw new Error("expected a pending user");
    // Queued in the request, sent by the outbox.
    expect(testAuth.emailHook.calls).toEqual([]);
    await testAuth.deliver();
    expect(testAuth.mailer.sent).toEqual([]);
    expect(testAuth.emailHook.calls).toHaveLength(1);

    const { payload, messageId } = testAuth.emailHook.last;
    // The message's id, as webhook-id is: a receiver may drop a duplicate by either.
    expect(payload.metadata).toEqual({ uuid: messageId, time: testAuth.clock.now().toISOString(), name: "send-email" });
    expect(payload.email_data).toEqual(
      emailData({
        token: expect.stringMatching(SIX_DIGITS),
        token_hash: expect.any(String),
        redirect_to: "https://app.example.com/welcome",
        email_action_type: "signup",
        site_url: testAuth.policy.apiExternalUrl,
      }),
    );
    expect(payload.email_data.token_hash).not.toBe("");
    const stored = (await testAuth.stores.users.findById(result.user.id))!;
    // GoTrue's user JSON of the stored user, whose user_metadata shows what the signup chose.
    expect(payload.user.user_metadata).toMatchObject({ plan: "pro" });
    // As the signup's answer shows the user.
    expect(payload.user.user_metadata).toEqual(json(result.user.userMetadata));
    expect(stored.userMetadata).not.toHaveProperty("plan");
    expect(payload.user).toEqual(json(presentUser({ ...stored, userMetadata: payload.user.user_metadata })));
    expect(payload.user).toMatchObject({ id: stored.id, email: "new@example.com" });
    expect(payload.user).not.toHaveProperty("email_confirmed_at");
    // The outbox's id, and the entry is delivered.
    expect(messageId).toMatch(UUID);
    expect(await testAuth.readOutbox(messageId!)).toMatchObject({ attempts: 0, sealedMessage: null });
    expect((await testAuth.readOutbox(messageId!))?.deliveredAt).toBeInstanceOf(Date);

    // The link token confirms the account, and its data with it.
    const grant = await sessionFrom(testAuth, {
      type: "signup",
      proof: { linkToken: payload.email_data.token_hash },
      followedLink: true,
      context,
    });
    expect(grant.user.emailConfirmedAt).toBeInstanceOf(Date);
    expect(grant.user.userMetadata).toMatchObject({ plan: "pro" });
  });

  it("a signup's code confirms it too", async () => {
    const testAuth = withSendHooks();
    await testAuth.auth.signUp({ email: "new@example.com", password, context });
    await testAuth.deliver();
    const { token } = testAuth.emailHook.last.payload.email_data;
    const grant = await sessionFrom(testAuth, {
      type: "email",
      proof: { email: "new@example.com", code: token },
      followedLink: false,
      context,
    });
    expect(grant.user.email).toBe("new@example.com");
  });

  it("a magic link, whose code signs in", async () => {
    const testAuth = withSendHooks();
    const { user } = await signedIn(testAuth);
    await testAuth.auth.sendMagicLink({
      email: "ada@example.com",
      createUser: false,
      redirectTo: ["https://app.example.com/in"],
      context,
    });
    await testAuth.deliver();
    expect(testAuth.mailer.sent).toEqual([]);
    const { payload } = testAuth.emailHook.last;
    expect(payload.email_data).toEqual(
      emailData({
        token: expect.stringMatching(SIX_DIGITS),
        token_hash: expect.any(String),
        redirect_to: "https://app.example.com/in",
        email_action_type: "magiclink",
      }),
    );
    expect(payload.user).toMatchObject({ id: user.id, email: "ada@example.com" });
    expect(payload.user.email_confirmed_at).toEqual(expect.any(String));
    const grant = await sessionFrom(testAuth, {
      type: "email",
      proof: { email: "ada@example.com", code: payload.email_data.token },
      followedLink: false,
      context,
    });
    expect(grant.user.id).toBe(user.id);
  });

  it("a recovery, whose link token signs in", async () => {
    const testAuth = withSendHooks();
    const { user } = await signedIn(testAuth);
    await testAuth.auth.recoverPassword({ email: "ada@example.com", context });
    await testAuth.deliver();
    expect(testAuth.mailer.sent).toEqual([]);
    const { payload } = testAuth.emailHook.last;
    expect(payload.email_data).toEqual(
      emailData({
        token: expect.stringMatching(SIX_DIGITS),
        token_hash: expect.any(String),
        redirect_to: "http://localhost:3000",
        email_action_type: "recovery",
      }),
    );
    expect(payload.user.recovery_sent_at).toEqual(expect.any(String));
    const grant = await sessionFrom(testAuth, {
      type: "recovery",
      proof: { linkToken: payload.email_data.token_hash },
      followedLink: true,
      context,
    });
    expect(grant.user.id).toBe(user.id);
  });

  it("an invitation, with the invitee's data, whose link token confirms the account", async () => {
    const testAuth = withSendHooks();
    const invited = await testAuth.auth.inviteUser({
      admin,
      email: "invitee@example.com",
      data: { team: "blue" },
      redirectTo: ["https://app.example.com/join"],
      context,
    });
    await testAuth.deliver();
    expect(testAuth.mailer.sent).toEqual([]);
    const { payload } = testAuth.emailHook.last;
    expect(payload.email_data).toEqual(
      emailData({
        token: expect.stringMatching(SIX_DIGITS),
        token_hash: expect.any(String),
        redirect_to: "https://app.example.com/join",
        email_action_type: "invite",
      }),
    );
    expect(payload.user).toMatchObject({
      id: invited.id,
      email: "invitee@example.com",
      invited_at: expect.any(String),
      user_metadata: { team: "blue" },
    });
    const grant = await sessionFrom(testAuth, {
      type: "invite",
      proof: { linkToken: payload.email_data.token_hash },
      followedLink: true,
      context,
    });
    expect(grant.user.emailConfirmedAt).toBeInstanceOf(Date);
  });

  it("a reauthentication: the nonce alone, which a password change then takes", async () => {
    const testAuth = withSendHooks({ policy: { passwordChangeRequiresReauthentication: true } });
    const { principal } = await signedIn(testAuth);
    await testAuth.auth.reauthenticate({ principal, context });
    await testAuth.deliver();
    expect(testAuth.mailer.sent).toEqual([]);
    const { payload } = testAuth.emailHook.last;
    expect(payload.email_data).toEqual(
      emailData({ token: expect.stringMatching(SIX_DIGITS), email_action_type: "reauthentication" }),
    );
    await failsWith(
      "reauthentication_needed",
      testAuth.auth.updateUser({ principal, password: "another one", context }),
    );
    await testAuth.auth.updateUser({ principal, password: "another one", nonce: payload.email_data.token, context });
  });

  describe("an email change", () => {
    async function changing(options: TestAuthOptions = {}) {
      const testAuth = withSendHooks(options);
      const { user, principal } = await signedIn(testAuth, { email: "old@example.com" });
      await testAuth.auth.updateUser({
        principal,
        email: "new@example.com",
        redirectTo: ["https://app.example.com/moved"],
        context,
      });
      await testAuth.deliver();
      expect(testAuth.mailer.sent).toEqual([]);
      return { ...testAuth, user };
    }

    it("with secure change: one call, token and token_hash_new the current address's, token_new and token_hash the new one's", async () => {
      const testAuth = await changing();
      expect(testAuth.emailHook.calls).toHaveLength(1);
      const { payload, messageId } = testAuth.emailHook.last;
      expect(payload.email_data).toEqual(
        emailData({
          token: expect.stringMatching(SIX_DIGITS),
          token_hash: expect.any(String),
          redirect_to: "https://app.example.com/moved",
          email_action_type: "email_change",
          token_new: expect.stringMatching(SIX_DIGITS),
          token_hash_new: expect.any(String),
        }),
      );
      const data = payload.email_data;
      expect(data.token_hash).not.toBe(data.token_hash_new);
      expect(payload.user).toMatchObject({
        id: testAuth.user.id,
        email: "old@example.com",
        new_email: "new@example.com",
        email_change_sent_at: expect.any(String),
      });
      expect((await testAuth.readOutbox(messageId!))?.deliveredAt).toBeInstanceOf(Date);

      // token_hash_new confirms the current address; token_new, typed with the new address, completes the change.
      const first = await testAuth.auth.verify({
        type: "email_change",
        proof: { linkToken: data.token_hash_new },
        followedLink: true,
        context,
      });
      expect(first.kind).toBe("awaiting_other_address");
      const grant = await sessionFrom(testAuth, {
        type: "email_change",
        proof: { email: "new@example.com", code: data.token_new },
        followedLink: false,
        context,
      });
      expect(grant.user.email).toBe("new@example.com");
    });

    it("with secure change: token, typed with the current address, and token_hash complete it the other way", async () => {
      const testAuth = await changing();
      const data = testAuth.emailHook.last.payload.email_data;
      const first = await testAuth.auth.verify({
        type: "email_change",
        proof: { email: "old@example.com", code: data.token },
        followedLink: false,
        context,
      });
      expect(first.kind).toBe("awaiting_other_address");
      const grant = await sessionFrom(testAuth, {
        type: "email_change",
        proof: { linkToken: data.token_hash },
        followedLink: true,
        context,
      });
      expect(grant.user.email).toBe("new@example.com");
    });

    it("without secure change: token and token_hash are the new address's, and its change is notified", async () => {
      const testAuth = await changing({
        policy: { email: { secureEmailChange: false, notifications: { email_changed: true } } },
      });
      expect(testAuth.emailHook.calls).toHaveLength(1);
      const data = testAuth.emailHook.last.payload.email_data;
      expect(data).toEqual(
        emailData({
          token: expect.stringMatching(SIX_DIGITS),
          token_hash: expect.any(String),
          redirect_to: "https://app.example.com/moved",
          email_action_type: "email_change",
        }),
      );
      const grant = await sessionFrom(testAuth, {
        type: "email_change",
        proof: { email: "new@example.com", code: data.token },
        followedLink: false,
        context,
      });
      expect(grant.user.email).toBe("new@example.com");

      await testAuth.deliver();
      expect(testAuth.mailer.sent).toEqual([]);
      const [notified] = testAuth.emailHook.ofType("email_changed_notification");
      expect(notified.email_data).toEqual(
        emailData({ email_action_type: "email_changed_notification", old_email: "old@example.com" }),
      );
      expect(notified.user.email).toBe("new@example.com");
    });

    it("without secure change, its link token completes it as well", async () => {
      const testAuth = await changing({ policy: { email: { secureEmailChange: false } } });
      const grant = await sessionFrom(testAuth, {
        type: "email_change",
        proof: { linkToken: testAuth.emailHook.last.payload.email_data.token_hash },
        followedLink: true,
        context,
      });
      expect(grant.user.email).toBe("new@example.com");
    });
  });

  describe("notifications", () => {
    const everyNotification = {
      password_changed: true,
      email_changed: true,
      phone_changed: true,
      identity_linked: true,
      identity_unlinked: true,
      mfa_factor_enrolled: true,
      mfa_factor_unenrolled: true,
    };

    it("of a password change", async () => {
      const testAuth = withSendHooks({ policy: { email: { notifications: everyNotification } } });
      const { user, principal } = await signedIn(testAuth);
      await testAuth.auth.updateUser({ principal, password: "changed pw", context });
      await testAuth.deliver();
      expect(testAuth.mailer.sent).toEqual([]);
      const [notified] = testAuth.emailHook.ofType("password_changed_notification");
      expect(notified.email_data).toEqual(emailData({ email_action_type: "password_changed_notification" }));
      expect(notified.user).toMatchObject({ id: user.id, email: "ada@example.com" });
    });

    it("of a phone change, with the number it replaced", async () => {
      const testAuth = withSendHooks({ policy: { email: { notifications: everyNotification } } });
      const { principal } = await signedIn(testAuth, { phone, phoneConfirmedAt: new Date() });
      await testAuth.auth.updateUser({ principal, phone: "+15550100555", context });
      const { otp } = testAuth.smsHook.last.payload.sms;
      await testAuth.auth.verify({
        type: "phone_change",
        proof: { phone: "+15550100555", code: otp },
        followedLink: false,
        context,
      });
      await testAuth.deliver();
      expect(testAuth.mailer.sent).toEqual([]);
      const [notified] = testAuth.emailHook.ofType("phone_changed_notification");
      expect(notified.email_data).toEqual(
        emailData({ email_action_type: "phone_changed_notification", old_phone: phone }),
      );
      expect(notified.user.phone).toBe("+15550100555");
    });

    it("of an identity linked and unlinked, with its provider", async () => {
      const testAuth = withSendHooks({
        policy: { manualLinkingEnabled: true, email: { notifications: everyNotification } },
      });
      const { principal, user } = await signedIn(testAuth);
      const linked = await linkThroughProvider(testAuth, testAuth.github, principal);
      expect(linked.kind).toBe("session");
      const github = (await testAuth.stores.users.findById(user.id))!.identities.find(
        (identity) => identity.provider === "github",
      )!;
      await testAuth.auth.oauth.unlinkIdentity({ principal, identityId: github.id, context });
      await testAuth.deliver();
      expect(testAuth.mailer.sent).toEqual([]);
      for (const type of ["identity_linked_notification", "identity_unlinked_notification"]) {
        const [notified] = testAuth.emailHook.ofType(type);
        expect(notified.email_data).toEqual(emailData({ email_action_type: type, provider: "github" }));
        expect(notified.user.id).toBe(user.id);
      }
    });

    it("of a second factor enrolled and removed, with its type", async () => {
      const testAuth = withSendHooks({ policy: { email: { notifications: everyNotification } } });
      const { grant } = await signedIn(testAuth);
      const principal = await principalOf(testAuth, grant);
      const enrolled = await testAuth.auth.mfa.enroll({
        principal,
        factorType: "totp",
        friendlyName: undefined,
        issuer: undefined,
        phone: undefined,
        context,
      });
      if (!("totp" in enrolled)) throw new Error("expected a TOTP enrollment");
      const challenge = await testAuth.auth.mfa.challenge({
        principal,
        factorId: enrolled.factor.id,
        channel: undefined,
        context,
      });
      const stepped = await testAuth.auth.mfa.verify({
        principal,
        factorId: enrolled.factor.id,
        challengeId: challenge.id,
        code: totpCode(enrolled.totp.secret, totpStep(testAuth.clock.now())),
        context,
      });
      await testAuth.auth.mfa.unenroll({
        principal: await principalOf(testAuth, stepped),
        factorId: enrolled.factor.id,
        context,
      });
      await testAuth.deliver();
      expect(testAuth.mailer.sent).toEqual([]);
      for (const type of ["mfa_factor_enrolled_notification", "mfa_factor_unenrolled_notification"]) {
        const [notified] = testAuth.emailHook.ofType(type);
        expect(notified.email_data).toEqual(emailData({ email_action_type: type, factor_type: "totp" }));
      }
    });
  });
});

describe("send_email: attempts and failures", () => {
  /** A pending signup's confirmation, not yet attempted. */
  async function signedUp() {
    const testAuth = withSendHooks();
    await testAuth.auth.signUp({ email: "new@example.com", password, context });
    return testAuth;
  }

  it("retries a hook that timed out or answered 5xx, under the same message id, until it answers", async () => {
    const testAuth = await signedUp();
    testAuth.emailHook.answers = ["timeout", "down"];
    const first = await testAuth.auth.deliverDueMessages();
    expect(first.failures).toEqual([
      {
        outcome: "failed",
        id: expect.stringMatching(UUID),
        message: { channel: "email", kind: "confirmation" },
        error: expect.stringContaining("the send_email hook failed"),
        willRetry: true,
      },
    ]);
    const id = first.failures[0]!.id;
    expect(await testAuth.readOutbox(id)).toMatchObject({
      attempts: 1,
      deliveredAt: null,
      nextAttemptAt: new Date(testAuth.clock.now().getTime() + FIRST_RETRY_SECONDS * 1000),
    });

    // Not due before the backoff.
    testAuth.clock.advance({ seconds: FIRST_RETRY_SECONDS - 1 });
    expect((await testAuth.auth.deliverDueMessages()).claimed).toBe(0);
    testAuth.clock.advance({ seconds: 1 });
    expect((await testAuth.auth.deliverDueMessages()).failures).toEqual([expect.objectContaining({ willRetry: true })]);
    testAuth.clock.advance({ seconds: 2 * FIRST_RETRY_SECONDS });
    expect(await testAuth.auth.deliverDueMessages()).toMatchObject({ claimed: 1, delivered: 1 });

    expect(testAuth.emailHook.calls.map((call) => call.messageId)).toEqual([id, id, id]);
    // The same tokens each time.
    const tokens = new Set(testAuth.emailHook.calls.map((call) => call.payload.email_data.token_hash));
    expect(tokens.size).toBe(1);
    // Two failed attempts counted; the third delivered.
    expect(await testAuth.readOutbox(id)).toMatchObject({ attempts: 2, sealedMessage: null, nextAttemptAt: null });
    expect((await testAuth.readOutbox(id))?.deliveredAt).toBeInstanceOf(Date);
    expect(testAuth.mailer.sent).toEqual([]);
    testAuth.clock.advance({ minutes: 10 });
    await testAuth.deliver();
    expect(testAuth.emailHook.calls).toHaveLength(3);
  });

  it("gives up on a message the hook refused with a 4xx of its own", async () => {
    const testAuth = await signedUp();
    testAuth.emailHook.answers = ["refuse"];
    const report = await testAuth.auth.deliverDueMessages();
    expect(report.failures).toEqual([
      expect.objectContaining({ message: { channel: "email", kind: "confirmation" }, error: "no", willRetry: false }),
    ]);
    const id = report.failures[0]!.id;
    expect(testAuth.emailHook.last.messageId).toBe(id);
    expect(await testAuth.readOutbox(id)).toMatchObject({
      attempts: 1,
      nextAttemptAt: null,
      deliveredAt: null,
      sealedMessage: null,
      lastError: "no",
    });
    testAuth.clock.advance({ hours: 1 });
    await testAuth.deliver();
    expect(testAuth.emailHook.calls).toHaveLength(1);
    expect(testAuth.mailer.sent).toEqual([]);
  });

  it("gives up on a message whose user was deleted before it went, sending it nowhere", async () => {
    const testAuth = await signedUp();
    const pending = (await testAuth.stores.users.findByEmail("new@example.com"))!;
    await testAuth.auth.admin.deleteUser({ admin, userId: pending.id, context });
    const report = await testAuth.auth.deliverDueMessages();
    expect(report.failures).toEqual([expect.objectContaining({ willRetry: false })]);
    expect(await testAuth.readOutbox(report.failures[0]!.id)).toMatchObject({ nextAttemptAt: null, deliveredAt: null });
    testAuth.clock.advance({ hours: 1 });
    await testAuth.deliver();
    expect(testAuth.emailHook.calls).toEqual([]);
    expect(testAuth.mailer.sent).toEqual([]);
  });

  it("finds the user of a message queued before hooks (no userId) by its address", async () => {
    const testAuth = withSendHooks();
    const { user } = await signedIn(testAuth);
    const legacy = { channel: "email", email: { kind: "password_changed", to: "ada@example.com" } };
    const now = testAuth.clock.now();
    await testAuth.stores.outbox.enqueue({
      id: "0b8f2e1c-3d4a-4b5c-8d6e-7f8091a2b3c4",
      channel: "email",
      sealedMessage: testAuth.ports.secrets.seal(JSON.stringify(legacy)),
      createdAt: now,
      nextAttemptAt: now,
      expiresAt: new Date(now.getTime() + 3_600_000),
      attempts: 0,
      deliveredAt: null,
      lastError: null,
    });
    await testAuth.deliver();
    expect(testAuth.emailHook.last.payload.user.id).toBe(user.id);
    expect(testAuth.emailHook.last.payload.email_data.email_action_type).toBe("password_changed_notification");
  });

  it("gives up alike when the user was soft-deleted: its tokens and address are gone", async () => {
    const testAuth = withSendHooks();
    const { user } = await signedIn(testAuth);
    await testAuth.auth.sendMagicLink({ email: "ada@example.com", createUser: false, context });
    await testAuth.auth.admin.deleteUser({ admin, userId: user.id, softDelete: true, context });
    const report = await testAuth.auth.deliverDueMessages();
    expect(report.failures).toEqual([expect.objectContaining({ willRetry: false })]);
    expect(testAuth.emailHook.calls).toEqual([]);
    expect(testAuth.mailer.sent).toEqual([]);
  });
});

describe("send_sms: every code goes to the hook, at once, none to the SMS provider", () => {
  /** The call the request made, which the outbox records as delivered under the same id. */
  async function textedInRequest(testAuth: WithSendHooks, to: string) {
    expect(testAuth.smsHook.calls).toHaveLength(1);
    expect(testAuth.sms.sent).toEqual([]);
    const { payload, messageId } = testAuth.smsHook.last;
    expect(payload.metadata).toEqual({ uuid: messageId, time: testAuth.clock.now().toISOString(), name: "send-sms" });
    expect(payload.sms).toEqual({ otp: expect.stringMatching(SIX_DIGITS), phone: to });
    expect((await testAuth.readOutbox(messageId!))?.deliveredAt).toBeInstanceOf(Date);
    // Nothing is sent again.
    await testAuth.deliver();
    expect(testAuth.smsHook.calls).toHaveLength(1);
    expect(testAuth.sms.sent).toEqual([]);
    return { payload, messageId: messageId! };
  }

  it("a phone signup's code, which confirms the number", async () => {
    const testAuth = withSendHooks();
    const result = await testAuth.auth.signUp({ phone, password, data: { plan: "pro" }, context });
    if (result.kind !== "user") throw new Error("expected a pending user");
    const { payload } = await textedInRequest(testAuth, phone);
    expect(payload.user).toMatchObject({ id: result.user.id, phone, email: "" });
    expect(payload.user).not.toHaveProperty("phone_confirmed_at");
    const grant = await sessionFrom(testAuth, {
      type: "sms",
      proof: { phone, code: payload.sms.otp },
      followedLink: false,
      context,
    });
    expect(grant.user.phoneConfirmedAt).toBeInstanceOf(Date);
  });

  it("a sign-in code, under the message id the request answers", async () => {
    const testAuth = withSendHooks();
    const { user } = await signedIn(testAuth, { phone, phoneConfirmedAt: new Date() });
    const { messageId: answered } = await testAuth.auth.sendSmsOtp({ phone, createUser: false, context });
    const { payload, messageId } = await textedInRequest(testAuth, phone);
    expect(messageId).toBe(answered);
    expect(payload.user).toMatchObject({ id: user.id, phone });
    const grant = await sessionFrom(testAuth, {
      type: "sms",
      proof: { phone, code: payload.sms.otp },
      followedLink: false,
      context,
    });
    expect(grant.user.id).toBe(user.id);
  });

  it("a phone change's code, to the new number", async () => {
    const testAuth = withSendHooks();
    const { principal, user } = await signedIn(testAuth, { phone, phoneConfirmedAt: new Date() });
    await testAuth.auth.updateUser({ principal, phone: "+15550100555", context });
    const { payload } = await textedInRequest(testAuth, "+15550100555");
    expect(payload.user).toMatchObject({ id: user.id, phone, new_phone: "+15550100555" });
    const grant = await sessionFrom(testAuth, {
      type: "phone_change",
      proof: { phone: "+15550100555", code: payload.sms.otp },
      followedLink: false,
      context,
    });
    expect(grant.user.phone).toBe("+15550100555");
  });

  it("a reauthentication's nonce, for a user without an email", async () => {
    const testAuth = withSendHooks({ policy: { passwordChangeRequiresReauthentication: true } });
    const { principal } = await signedIn(testAuth, { email: null, phone, phoneConfirmedAt: new Date() });
    const { messageId: answered } = await testAuth.auth.reauthenticate({ principal, context });
    const { payload, messageId } = await textedInRequest(testAuth, phone);
    expect(messageId).toBe(answered);
    await testAuth.auth.updateUser({ principal, password: "another one", nonce: payload.sms.otp, context });
  });

  it("an MFA challenge's code, with sms_type mfa", async () => {
    const testAuth = withSendHooks();
    const { grant } = await signedIn(testAuth);
    const principal = await principalOf(testAuth, grant);
    const { factor } = await testAuth.auth.mfa.enroll({
      principal,
      factorType: "phone",
      friendlyName: "Phone",
      issuer: undefined,
      phone: "+14155550111",
      context,
    });
    const challenge = await testAuth.auth.mfa.challenge({
      principal,
      factorId: factor.id,
      channel: undefined,
      context,
    });
    expect(testAuth.sms.sent).toEqual([]);
    const { payload, messageId } = testAuth.smsHook.last;
    expect(payload.sms).toEqual({ otp: expect.stringMatching(SIX_DIGITS), sms_type: "mfa", phone: "+14155550111" });
    expect(payload.user.id).toBe(grant.user.id);
    expect((await testAuth.readOutbox(messageId!))?.deliveredAt).toBeInstanceOf(Date);
    const stepped = await testAuth.auth.mfa.verify({
      principal,
      factorId: factor.id,
      challengeId: challenge.id,
      code: payload.sms.otp,
      context,
    });
    expect(stepped.session.aal).toBe("aal2");
  });
});

describe("send_sms: failures", () => {
  it("a request that ran out of time in the hook fails as such, with nothing written", async () => {
    const testAuth = withSendHooks();
    testAuth.smsHook.answers = ["out_of_time"];
    const error = await testAuth.auth.signUp({ phone, password, context }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "request_timeout" });
    expect(await testAuth.stores.users.findByPhone(phone)).toBeNull();
    await testAuth.deliver();
    expect(testAuth.smsHook.calls).toHaveLength(1);
  });

  it("a hook that timed out: the request succeeds, and the outbox texts the same code under the same id", async () => {
    const testAuth = withSendHooks();
    testAuth.smsHook.answers = ["timeout"];
    const result = await testAuth.auth.signUp({ phone, password, context });
    expect(result.kind).toBe("user");
    const first = testAuth.smsHook.last;
    expect(await testAuth.readOutbox(first.messageId!)).toMatchObject({
      attempts: 1,
      deliveredAt: null,
      nextAttemptAt: new Date(testAuth.clock.now().getTime() + FIRST_RETRY_SECONDS * 1000),
    });
    await testAuth.deliver();
    expect(testAuth.smsHook.calls).toHaveLength(1);

    testAuth.clock.advance({ seconds: FIRST_RETRY_SECONDS });
    await testAuth.deliver();
    expect(testAuth.smsHook.calls).toHaveLength(2);
    const retry = testAuth.smsHook.last;
    expect(retry.messageId).toBe(first.messageId);
    expect(retry.payload.sms).toEqual(first.payload.sms);
    expect((await testAuth.readOutbox(first.messageId!))?.deliveredAt).toBeInstanceOf(Date);
    expect(testAuth.sms.sent).toEqual([]);
    // The code works (SMS_OTP_EXP is 60 s here).
    await sessionFrom(testAuth, {
      type: "sms",
      proof: { phone, code: retry.payload.sms.otp },
      followedLink: false,
      context,
    });
  });

  it("a 5xx of the hook's own is retried too", async () => {
    const testAuth = withSendHooks();
    const { user } = await signedIn(testAuth, { phone, phoneConfirmedAt: new Date() });
    testAuth.smsHook.answers = ["down"];
    const { messageId } = await testAuth.auth.sendSmsOtp({ phone, createUser: false, context });
    expect(await testAuth.stores.oneTimeTokens.findByUser(user.id, "confirmation")).not.toBeNull();
    testAuth.clock.advance({ seconds: FIRST_RETRY_SECONDS });
    await testAuth.deliver();
    expect(testAuth.smsHook.calls.map((call) => call.messageId)).toEqual([messageId, messageId]);
    expect((await testAuth.readOutbox(messageId))?.deliveredAt).toBeInstanceOf(Date);
  });

  it("a hook's own 4xx fails a phone signup with its error, and writes nothing", async () => {
    const testAuth = withSendHooks();
    testAuth.smsHook.answers = ["refuse"];
    const refused = await failsWith("unknown", testAuth.auth.signUp({ phone, password, context }));
    expect(refused.message).toBe("no");
    expect(refused.hookStatus).toBe(400);
    expect(await testAuth.stores.users.findByPhone(phone)).toBeNull();
    expect(await testAuth.readOutbox(testAuth.smsHook.last.messageId!)).toBeNull();
    await testAuth.deliver();
    expect(testAuth.smsHook.calls).toHaveLength(1);
    expect(testAuth.sms.sent).toEqual([]);
  });

  it("a hook's own 4xx fails a sign-in code, a phone change and a reauthentication, leaving no pending token", async () => {
    const testAuth = withSendHooks();
    const { user, principal } = await signedIn(testAuth, { phone, phoneConfirmedAt: new Date() });
    testAuth.smsHook.answers = ["refuse", "refuse"];
    await failsWith("unknown", testAuth.auth.sendSmsOtp({ phone, createUser: false, context }));
    expect(await testAuth.stores.oneTimeTokens.findByUser(user.id, "confirmation")).toBeNull();
    await failsWith("unknown", testAuth.auth.updateUser({ principal, phone: "+15550100555", context }));
    expect(await testAuth.stores.users.findById(user.id)).toMatchObject({ newPhone: null, phoneChangeSentAt: null });
    expect(await testAuth.stores.oneTimeTokens.findByUser(user.id, "phone_change")).toBeNull();

    const phoneOnly = await signedIn(testAuth, {
      email: null,
      phone: "+15550100556",
      phoneConfirmedAt: new Date(),
    });
    testAuth.smsHook.answers = ["refuse"];
    await failsWith("unknown", testAuth.auth.reauthenticate({ principal: phoneOnly.principal, context }));
    expect(await testAuth.stores.oneTimeTokens.findByUser(phoneOnly.user.id, "reauthentication")).toBeNull();
    expect(testAuth.sms.sent).toEqual([]);
  });

  it("a hook's own 4xx fails an MFA challenge, which is not kept", async () => {
    const testAuth = withSendHooks();
    const { grant } = await signedIn(testAuth);
    const principal = await principalOf(testAuth, grant);
    const { factor } = await testAuth.auth.mfa.enroll({
      principal,
      factorType: "phone",
      friendlyName: "Phone",
      issuer: undefined,
      phone: "+14155550111",
      context,
    });
    testAuth.smsHook.answers = ["refuse"];
    await failsWith(
      "unknown",
      testAuth.auth.mfa.challenge({ principal, factorId: factor.id, channel: undefined, context }),
    );
    const stored = (await testAuth.stores.users.findById(grant.user.id))!.factors.find((f) => f.id === factor.id)!;
    // No frequency spent: another challenge may go at once.
    expect(stored.lastChallengedAt).toBeNull();
    await testAuth.auth.mfa.challenge({ principal, factorId: factor.id, channel: undefined, context });
    expect(testAuth.smsHook.calls).toHaveLength(2);
  });
});

describe("with the hooks off", () => {
  it("the mailer and the SMS provider get the messages, as before", async () => {
    const testAuth = createTestAuth();
    await testAuth.auth.signUp({ email: "new@example.com", password, context });
    await testAuth.auth.signUp({ phone, password, context });
    expect(await testAuth.lastEmail("new@example.com", "confirmation")).toMatchObject({
      to: "new@example.com",
      otp: expect.stringMatching(SIX_DIGITS),
    });
    expect(testAuth.sms.lastTo(phone)).toMatchObject({ kind: "confirmation", otp: expect.stringMatching(SIX_DIGITS) });
  });

  it("an email change queued for the hook, delivered once it is off, goes as its two mails", async () => {
    const on = withSendHooks();
    const { principal } = await signedIn(on, { email: "old@example.com" });
    await on.auth.updateUser({ principal, email: "new@example.com", context });
    // The same stores and clock, the hooks off: the worker of another configuration takes the queue over.
    const off = createTestAuth({ ports: { ...on.ports, hooks: {} } });
    await off.auth.deliverDueMessages();
    expect(on.mailer.sent.map((mail) => `${mail.kind} ${mail.to}`).sort()).toEqual([
      "email_change new@example.com",
      "email_change old@example.com",
    ]);
    expect(on.emailHook.calls).toEqual([]);
  });
});
