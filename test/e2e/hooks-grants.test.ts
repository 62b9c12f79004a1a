import { randomBytes } from "node:crypto";
import { totpCode, totpStep } from "@latchkey/domain/testing";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKeepingFunction, httpHook, type Receiver, secretOf, startReceiver } from "./hooks-support.ts";
import { Browser, SITE } from "./oauth/browser.ts";
import { CLIENT_ID, CLIENT_SECRET, closeStandIns, startGitHub } from "./oauth/providers.ts";
import { adminApi, claimsOf, client, fragmentOf } from "./support.ts";

// The custom_access_token hook over every grant a client meets besides a password, a signup and a refresh (those are
// in hooks.test.ts): each token carries the hook's claim, and the hook is told GoTrue's `authentication_method` for
// how it came to be issued. Then the send_sms hook as a function in the server's own database.

const password = "correct horse battery";
const address = (name: string) => `${name}-${randomBytes(4).toString("hex")}@example.com`;
/** A US number of the 555 range, random enough that no two tests here meet. */
const phoneNumber = () => `+1202555${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;
/** The code an authenticator app shows for `secret` now. */
const appCode = (secret: string) => totpCode(secret, totpStep(new Date()));

describe("the custom_access_token hook on every grant", () => {
  const secret = secretOf();
  let receiver: Receiver;
  let github: Awaited<ReturnType<typeof startGitHub>>;
  let server: TestServer;

  beforeAll(async () => {
    receiver = await startReceiver(secret);
    receiver.on("/claims", (payload) => ({
      status: 200,
      body: { claims: { ...payload["claims"], user_role: "member", method_seen: payload["authentication_method"] } },
    }));
    github = await startGitHub();
    server = await startTestServer({
      AUTH_URI_ALLOW_LIST: `${SITE}/**`,
      AUTH_SMTP_MAX_FREQUENCY: "1",
      AUTH_EXTERNAL_ANONYMOUS_USERS_ENABLED: "true",
      AUTH_EXTERNAL_GITHUB_ENABLED: "true",
      AUTH_EXTERNAL_GITHUB_CLIENT_ID: CLIENT_ID,
      AUTH_EXTERNAL_GITHUB_SECRET: CLIENT_SECRET,
      AUTH_EXTERNAL_GITHUB_URL: github.url,
      ...httpHook(receiver, "CUSTOM_ACCESS_TOKEN", "/claims", secret),
    });
  });
  afterEach(() => {
    expect(receiver.calls.every((call) => call.verified)).toBe(true);
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await closeStandIns();
  });

  /**
   * That `accessToken` verifies, carries the hook's claim and was issued for `method`, and that the hook was asked
   * for it: a signed call about its session with GoTrue's payload, the claims the token would have had without it.
   */
  async function expectCustomized(accessToken: string, method: string, aal = "aal1") {
    await server.verifyAccessToken(accessToken);
    const claims = claimsOf(accessToken);
    expect(claims).toMatchObject({ user_role: "member", method_seen: method, aal });
    const call = receiver
      .callsTo("/claims")
      .find(
        (each) =>
          each.payload["claims"]?.["session_id"] === claims["session_id"] &&
          each.payload["authentication_method"] === method,
      );
    expect(call?.verified).toBe(true);
    expect(call?.payload).toMatchObject({
      metadata: { name: "customize-access-token" },
      user_id: claims["sub"],
      claims: {
        sub: claims["sub"],
        aud: "authenticated",
        role: "authenticated",
        aal,
        session_id: claims["session_id"],
      },
      authentication_method: method,
    });
    expect(call?.payload["claims"]).not.toHaveProperty("user_role");
    return claims;
  }

  /** A confirmed account made by the admin API, with a password, signed in on no client yet. */
  async function confirmedAccount(name: string): Promise<{ email: string; userId: string }> {
    const email = address(name);
    const { data, error } = await (await adminApi(server)).createUser({ email, password, email_confirm: true });
    expect(error).toBeNull();
    return { email, userId: data.user!.id };
  }

  it("customizes an anonymous sign-in's token, told `anonymous`", async () => {
    const auth = client(server);
    const { data, error } = await auth.signInAnonymously();
    expect(error).toBeNull();
    const claims = await expectCustomized(data.session!.access_token, "anonymous");
    expect(claims).toMatchObject({ is_anonymous: true, sub: data.user!.id });
    expect((await auth.getUser()).data.user?.id).toBe(data.user!.id);
  });

  it("customizes the token of a mailed code verified with verifyOtp, told `otp`", async () => {
    const { email, userId } = await confirmedAccount("otp");
    const auth = client(server);
    expect((await auth.signInWithOtp({ email, options: { shouldCreateUser: false } })).error).toBeNull();
    const mail = await server.mail.waitFor(email);
    const { data, error } = await auth.verifyOtp({ email, token: mail.code!, type: "email" });
    expect(error).toBeNull();
    const claims = await expectCustomized(data.session!.access_token, "otp");
    expect(claims).toMatchObject({ sub: userId, email });
  });

  it("customizes the token of a PKCE magic link's code exchanged, told `magiclink`", async () => {
    const { email, userId } = await confirmedAccount("pkce-magic");
    const auth = client(server, { flowType: "pkce" });
    const sent = await auth.signInWithOtp({
      email,
      options: { shouldCreateUser: false, emailRedirectTo: `${SITE}/callback` },
    });
    expect(sent.error).toBeNull();
    const mail = await server.mail.waitFor(email);
    const landing = await server.followLink(mail.link!);
    expect(landing.pathname).toBe("/callback");
    const code = landing.searchParams.get("code");
    expect(code).toBeTruthy();
    // Following the link issued no token: the hook is asked only at the exchange.
    expect(receiver.callsTo("/claims").filter((call) => call.payload["user_id"] === userId)).toEqual([]);
    const { data, error } = await auth.exchangeCodeForSession(code!);
    expect(error).toBeNull();
    const claims = await expectCustomized(data.session!.access_token, "magiclink");
    expect(claims).toMatchObject({ sub: userId, email });
  });

  it("customizes the token of a PKCE signup confirmation's code exchanged, told `email/signup`", async () => {
    const email = address("pkce-signup");
    const auth = client(server, { flowType: "pkce" });
    const { data: signedUp, error: signUpError } = await auth.signUp({
      email,
      password,
      options: { emailRedirectTo: `${SITE}/callback` },
    });
    expect(signUpError).toBeNull();
    // Not confirmed yet: no session, so no token to customize.
    expect(signedUp.session).toBeNull();
    const mail = await server.mail.waitFor(email);
    const code = (await server.followLink(mail.link!)).searchParams.get("code");
    expect(code).toBeTruthy();
    const { data, error } = await auth.exchangeCodeForSession(code!);
    expect(error).toBeNull();
    const claims = await expectCustomized(data.session!.access_token, "email/signup");
    expect(claims).toMatchObject({ sub: signedUp.user!.id, email });
    expect((await auth.getUser()).data.user?.email_confirmed_at).toBeTruthy();
  });

  it("customizes the aal2 token of a TOTP verification, told `totp`", async () => {
    const { email, userId } = await confirmedAccount("mfa");
    const auth = client(server);
    const signedIn = await auth.signInWithPassword({ email, password });
    expect(signedIn.error).toBeNull();
    await expectCustomized(signedIn.data.session!.access_token, "password");
    const enrolled = await auth.mfa.enroll({ factorType: "totp", friendlyName: "Authenticator" });
    expect(enrolled.error).toBeNull();
    const { id: factorId, totp } = enrolled.data! as { id: string; totp: { secret: string } };
    const { data, error } = await auth.mfa.challengeAndVerify({ factorId, code: appCode(totp.secret) });
    expect(error).toBeNull();
    const claims = await expectCustomized(data!.access_token, "totp", "aal2");
    expect(claims["sub"]).toBe(userId);
    expect(claims["amr"]).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ method: "totp" }),
        expect.objectContaining({ method: "password" }),
      ]),
    );
    // A refresh of the aal2 session keeps both the level and the hook's claim.
    const { data: refreshed } = await auth.refreshSession();
    await expectCustomized(refreshed.session!.access_token, "token_refresh", "aal2");
  });

  it("customizes the token of a GitHub sign-in, implicit and PKCE, told `oauth`", async () => {
    const id = 4_000_000 + Math.floor(Math.random() * 1_000_000);
    const email = address("octo");
    github.signIn({ id, login: `octo-${id}`, emails: [{ email, verified: true, primary: true }] });

    const implicit = client(server);
    const { data: started } = await implicit.signInWithOAuth({
      provider: "github",
      options: { redirectTo: `${SITE}/welcome`, skipBrowserRedirect: true },
    });
    const fragment = fragmentOf(await new Browser(server).browse(started.url!));
    expect(fragment["access_token"]).toBeTruthy();
    const claims = await expectCustomized(fragment["access_token"]!, "oauth");
    expect(claims).toMatchObject({ email, app_metadata: expect.objectContaining({ provider: "github" }) });

    const pkce = client(server, { flowType: "pkce" });
    const { data: again } = await pkce.signInWithOAuth({
      provider: "github",
      options: { redirectTo: `${SITE}/auth/callback`, skipBrowserRedirect: true },
    });
    const code = (await new Browser(server).browse(again.url!)).searchParams.get("code");
    expect(code).toBeTruthy();
    const { data, error } = await pkce.exchangeCodeForSession(code!);
    expect(error).toBeNull();
    const exchanged = await expectCustomized(data.session!.access_token, "oauth");
    // The same person, the same account.
    expect(exchanged["sub"]).toBe(claims["sub"]);
    const calls = receiver
      .callsTo("/claims")
      .filter((call) => call.payload["user_id"] === claims["sub"] && call.payload["authentication_method"] === "oauth");
    expect(calls).toHaveLength(2);
  });
});

describe("the send_sms hook as a Postgres function", () => {
  const secret = secretOf();
  let receiver: Receiver;
  let server: TestServer;
  const schema = `hooks_${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    receiver = await startReceiver(secret);
    receiver.on("/claims", (payload) => ({
      status: 200,
      body: { claims: { ...payload["claims"], user_role: "member", method_seen: payload["authentication_method"] } },
    }));
    server = await startTestServer({
      AUTH_EXTERNAL_PHONE_ENABLED: "true",
      AUTH_HOOK_SEND_SMS_ENABLED: "true",
      AUTH_HOOK_SEND_SMS_URI: `pg-functions://postgres/${schema}/send_sms`,
      ...httpHook(receiver, "CUSTOM_ACCESS_TOKEN", "/claims", secret),
    });
    // An app that texts from its own database: the function keeps what it is sent, for a job of the app's.
    await createKeepingFunction(server, { schema, name: "send_sms", table: "outgoing_sms" });
  });
  afterAll(async () => {
    await server?.db.db.execute(sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    await server?.close();
    await receiver?.close();
  });

  /** The events the function has kept for `phone`, now (no waiting). */
  async function eventsFor(phone: string): Promise<Record<string, any>[]> {
    const result = await server.db.db.execute(
      sql.raw(`SELECT event FROM ${schema}.outgoing_sms WHERE event->'sms'->>'phone' = '${phone}' ORDER BY id`),
    );
    const rows = (result as unknown as { rows: { event: Record<string, any> | string }[] }).rows;
    return rows.map((row) => (typeof row.event === "string" ? JSON.parse(row.event) : row.event));
  }

  it("gives the function a phone sign-in's code within the request, which verifyOtp takes to sign in", async () => {
    const phone = phoneNumber();
    const auth = client(server);
    const { error } = await auth.signInWithOtp({ phone });
    expect(error).toBeNull();
    // Run within the request: the row is there when signInWithOtp returns.
    const events = await eventsFor(phone);
    expect(events).toHaveLength(1);
    expect(Object.keys(events[0]!).sort()).toEqual(["metadata", "sms", "user"]);
    expect(events[0]).toMatchObject({
      metadata: { name: "send-sms" },
      user: { phone },
      sms: { otp: expect.stringMatching(/^\d{6}$/), phone },
    });

    const { data, error: verifyError } = await auth.verifyOtp({ phone, token: events[0]!["sms"]["otp"], type: "sms" });
    expect(verifyError).toBeNull();
    expect(data.session?.user.phone).toBe(phone);
    expect(data.user?.phone_confirmed_at).toBeTruthy();
    expect(data.user?.id).toBe(events[0]!["user"]["id"]);
    // The phone's code is a grant of its own: the token carries the claim, the hook told `otp`.
    expect(claimsOf(data.session!.access_token)).toMatchObject({ user_role: "member", method_seen: "otp", phone });
    expect((await auth.getUser()).data.user?.phone).toBe(phone);
    // Nothing went to SMTP, and the function was not run again.
    expect(server.mail.messages).toEqual([]);
    expect(await eventsFor(phone)).toHaveLength(1);
  });
});
