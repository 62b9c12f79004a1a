import { describe, expect, it } from "vitest";
import { AuthError } from "../errors.ts";
import type { CaptchaVerifier } from "../ports/captcha-verifier.ts";
import type { SmsSender } from "../ports/sms-sender.ts";
import { aUser } from "../testing/builders.ts";
import { createTestAuth, type TestAuthOptions } from "../testing/create-test-auth.ts";
import { context, failsWith } from "../testing/fails-with.ts";
import { FakeOAuthProvider } from "../testing/fake-oauth-provider.ts";

// What the flows report through the FlowEvents port, which the server's metrics count: each event once, after the
// change it reports has committed, and nothing for what did not happen.

const password = "s3cret-pass";

async function withAccount(options: TestAuthOptions = {}) {
  const testAuth = createTestAuth(options);
  const user = aUser({ passwordHash: await testAuth.hasher.hash(password) });
  await testAuth.stores.users.insert(user);
  return { ...testAuth, user, email: user.email! };
}

describe("flow events", () => {
  it("report a password sign-in, and nothing for a wrong password", async () => {
    const { auth, events, email } = await withAccount();
    await failsWith("invalid_credentials", auth.signInWithPassword({ email, password: "wrong-pass", context }));
    expect(events.recorded).toEqual([]);
    await auth.signInWithPassword({ email, password, context });
    expect(events.recorded).toEqual([{ kind: "signed_in", method: "password" }]);
  });

  it("report a signup that signs in as a sign-up and a sign-in, and one awaiting confirmation as a sign-up", async () => {
    const auto = createTestAuth({ policy: { signup: { emailAutoconfirm: true } } });
    await auto.auth.signUp({ email: "auto@example.com", password, context });
    expect(auto.events.recorded).toEqual([
      { kind: "signed_up", provider: "email" },
      { kind: "signed_in", method: "password" },
    ]);

    const { auth, events, readOutbox } = createTestAuth();
    await auth.signUp({ phone: "+14155550100", password, context });
    expect(events.of("signed_up")).toEqual([{ kind: "signed_up", provider: "phone" }]);
    expect(events.of("signed_in")).toEqual([]);
    // The code's SMS went out with the request, under the id the outbox keeps it by.
    expect(events.of("message_delivered")).toEqual([
      { kind: "message_delivered", id: expect.any(String), message: { channel: "sms", kind: "confirmation" } },
    ]);
    const [delivered] = events.of("message_delivered");
    expect(await readOutbox(delivered!.id)).toMatchObject({ id: delivered!.id, attempts: 1 });
  });

  it("report no sign-up for an address that already has an account", async () => {
    const { auth, events, email } = await withAccount();
    await auth.signUp({ email, password, context });
    expect(events.of("signed_up")).toEqual([]);
  });

  it("report an anonymous sign-in as both", async () => {
    const { auth, events } = createTestAuth({ policy: { signup: { anonymousEnabled: true } } });
    await auth.signUp({ context });
    expect(events.recorded).toEqual([
      { kind: "signed_up", provider: "anonymous" },
      { kind: "signed_in", method: "anonymous" },
    ]);
  });

  it("report a code's sign-in, and an account made by asking for one", async () => {
    const testAuth = createTestAuth();
    const { auth, events } = testAuth;
    await auth.sendMagicLink({ email: "new@example.com", createUser: true, context });
    expect(events.of("signed_up")).toEqual([{ kind: "signed_up", provider: "email" }]);
    const mail = await testAuth.lastEmail("new@example.com", "confirmation");
    expect(events.of("message_delivered")).toEqual([
      { kind: "message_delivered", id: expect.any(String), message: { channel: "email", kind: "confirmation" } },
    ]);
    await auth.verify({ type: "signup", proof: { linkToken: mail!.linkToken }, followedLink: false, context });
    expect(events.of("signed_in")).toEqual([{ kind: "signed_in", method: "otp" }]);
  });

  it("report refreshes, rotated or answered within the reuse interval, and a reuse that ends the session", async () => {
    const { auth, events, email, clock } = await withAccount();
    const grant = await auth.signInWithPassword({ email, password, context });
    events.clear();
    await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    expect(events.recorded).toEqual([
      { kind: "refreshed", rotated: true },
      { kind: "refreshed", rotated: false },
    ]);
    clock.advance({ seconds: 11 });
    await failsWith("refresh_token_already_used", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    expect(events.of("refresh_token_reused")).toEqual([{ kind: "refresh_token_reused", familyRevoked: true }]);
    expect(events.of("refreshed")).toHaveLength(2);
  });

  it("report each rate limit's refusal by the limit that refused", async () => {
    const { auth, events, email } = await withAccount({
      policy: { requestLimits: { token: { events: 1 }, passwordFailures: { events: 1 } } },
    });
    await failsWith("invalid_credentials", auth.signInWithPassword({ email, password: "wrong-pass", context }));
    const other = { ...context, ip: "198.51.100.1" };
    await failsWith(
      "over_request_rate_limit",
      auth.signInWithPassword({ email, password, context: { ...context, ip: "198.51.100.2" } }),
    );
    await failsWith("over_request_rate_limit", auth.signInWithPassword({ email, password, context }));
    await auth.sendMagicLink({ email, createUser: true, context: other });
    await failsWith("over_email_send_rate_limit", auth.sendMagicLink({ email, createUser: true, context: other }));
    expect(events.of("rate_limited")).toEqual([
      { kind: "rate_limited", limit: "password_failures" },
      { kind: "rate_limited", limit: "client_token" },
      { kind: "rate_limited", limit: "email_frequency" },
    ]);
  });

  it("report captcha refusals as missing or rejected, and nothing for a provider that cannot be asked", async () => {
    let reachable = true;
    const captcha: CaptchaVerifier = {
      async verify(token) {
        if (!reachable) throw new Error("connect ECONNREFUSED");
        return { success: token === "good", errorCodes: token === "good" ? [] : ["invalid-input-response"] };
      },
    };
    const { auth, events } = createTestAuth({ ports: { captcha } });
    await auth.checkCaptcha({ token: "good", ip: null });
    await failsWith("captcha_failed", auth.checkCaptcha({ token: undefined, ip: null }));
    await failsWith("captcha_failed", auth.checkCaptcha({ token: "bad", ip: null }));
    reachable = false;
    await failsWith("unexpected_failure", auth.checkCaptcha({ token: "good", ip: null }));
    expect(events.recorded).toEqual([
      { kind: "captcha_failed", reason: "missing" },
      { kind: "captcha_failed", reason: "rejected" },
    ]);
  });

  it("report an OAuth sign-in that creates the account with its provider, and the next one as a sign-in only", async () => {
    const github = new FakeOAuthProvider();
    const { auth, events } = createTestAuth({ ports: { oauthProviders: new Map([["github", github]]) } });
    const signIn = async () => {
      await auth.oauth.start({ provider: "github", params: [] });
      return auth.oauth.complete({ params: { state: github.lastState, code: "4/0AbCdEf" }, context });
    };
    expect((await signIn()).kind).toBe("session");
    expect((await signIn()).kind).toBe("session");
    expect(events.recorded).toEqual([
      { kind: "signed_up", provider: "github" },
      { kind: "signed_in", method: "oauth", provider: "github" },
      { kind: "signed_in", method: "oauth", provider: "github" },
    ]);
  });

  it("report a message that failed, whether it will be retried, and no sign-up when its failure undid the request", async () => {
    let refuse = false;
    const sms: SmsSender = {
      async send() {
        throw refuse ? new AuthError("sms_send_failed", "the provider refused the number") : new Error("timeout");
      },
    };
    const { auth, events } = createTestAuth({ ports: { sms } });
    // An outcome unknown: the account and the code commit, and the outbox tries again.
    await auth.sendSmsOtp({ phone: "+14155550101", createUser: true, context });
    expect(events.recorded).toEqual([
      { kind: "message_failed", message: { channel: "sms", kind: "otp" }, willRetry: true },
      { kind: "signed_up", provider: "phone" },
    ]);
    events.clear();
    // Refused for good: the request fails and nothing it wrote stays, so no account was made.
    refuse = true;
    await failsWith("sms_send_failed", auth.sendSmsOtp({ phone: "+14155550102", createUser: true, context }));
    expect(events.recorded).toEqual([
      { kind: "message_failed", message: { channel: "sms", kind: "otp" }, willRetry: false },
    ]);
  });
});

describe("the outbox's depth", () => {
  it("reports every channel, with how long the oldest message still to deliver has waited", async () => {
    const testAuth = createTestAuth();
    const { auth, clock } = testAuth;
    expect(await auth.outboxDepth()).toEqual([
      { channel: "email", pending: 0, oldestAgeSeconds: 0 },
      { channel: "sms", pending: 0, oldestAgeSeconds: 0 },
    ]);
    await auth.sendMagicLink({ email: "first@example.com", createUser: true, context });
    clock.advance({ seconds: 30 });
    await auth.sendMagicLink({ email: "second@example.com", createUser: true, context });
    clock.advance({ seconds: 15 });
    expect(await auth.outboxDepth()).toEqual([
      { channel: "email", pending: 2, oldestAgeSeconds: 45 },
      { channel: "sms", pending: 0, oldestAgeSeconds: 0 },
    ]);
    await testAuth.deliver();
    expect((await auth.outboxDepth())[0]).toEqual({ channel: "email", pending: 0, oldestAgeSeconds: 0 });
  });
});
