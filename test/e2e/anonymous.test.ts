import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type SmsInbox, startSmsInbox } from "./sms-inbox.ts";
import { adminApi, claimsOf, client, fragmentOf } from "./support.ts";

const password = "correct horse battery";

// Anonymous users with the official client: signed in with no address, later made permanent by an email confirmed
// through a mail that reached a real SMTP server, or a phone confirmed by an SMS that reached a Twilio stand-in.
describe("anonymous sign-ins with the official client", () => {
  let inbox: SmsInbox;
  let server: TestServer;
  beforeAll(async () => {
    inbox = await startSmsInbox();
    server = await startTestServer({
      ...inbox.serverEnv,
      AUTH_EXTERNAL_ANONYMOUS_USERS_ENABLED: "true",
      AUTH_EXTERNAL_PHONE_ENABLED: "true",
      AUTH_URI_ALLOW_LIST: "http://localhost:3000/**",
    });
  });
  afterAll(async () => {
    await server?.close();
    await inbox?.close();
  });
  afterEach(() => expect(inbox.problems).toEqual([]));

  it("signs in anonymously: a session whose user and token say is_anonymous", async () => {
    const auth = client(server);
    const { data, error } = await auth.signInAnonymously({ options: { data: { theme: "dark" } } });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({
      is_anonymous: true,
      email: "",
      phone: "",
      user_metadata: { theme: "dark" },
      role: "authenticated",
    });
    expect(data.user?.identities ?? []).toEqual([]);
    const session = data.session!;
    expect(session.token_type).toBe("bearer");
    expect(session.refresh_token).toBeTruthy();
    expect(claimsOf(session.access_token)).toMatchObject({
      sub: data.user?.id,
      is_anonymous: true,
      role: "authenticated",
      aal: "aal1",
      amr: [{ method: "anonymous", timestamp: expect.any(Number) }],
    });

    expect((await auth.getUser()).data.user).toMatchObject({ id: data.user?.id, is_anonymous: true });
    const refreshed = await auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(claimsOf(refreshed.data.session!.access_token)["is_anonymous"]).toBe(true);

    const admin = await adminApi(server);
    expect((await admin.getUserById(data.user!.id)).data.user).toMatchObject({ is_anonymous: true, app_metadata: {} });
    // Each call is a new user.
    const other = await client(server).signInAnonymously();
    expect(other.data.user?.id).not.toBe(data.user?.id);
  });

  it("becomes permanent by an email confirmed through the mailed link, keeping its id, and then signs in with a password", async () => {
    const auth = client(server);
    const { data: anonymous } = await auth.signInAnonymously();
    const id = anonymous.user!.id;

    const updated = await auth.updateUser(
      { email: "anon-link@example.com" },
      { emailRedirectTo: "http://localhost:3000/converted" },
    );
    expect(updated.error).toBeNull();
    expect(updated.data.user).toMatchObject({ id, email: "", new_email: "anon-link@example.com", is_anonymous: true });
    // Only the new address hears of it: there is no current one.
    const mail = await server.mail.waitFor("anon-link@example.com");
    expect(mail.subject).toBe("Confirm your new email address");
    expect(new URL(mail.link!).searchParams.get("type")).toBe("email_change");

    const landing = await server.followLink(mail.link!);
    expect(`${landing.origin}${landing.pathname}`).toBe("http://localhost:3000/converted");
    const fragment = fragmentOf(landing);
    expect(fragment).toMatchObject({ type: "email_change", token_type: "bearer" });
    expect(claimsOf(fragment["access_token"]!)).toMatchObject({
      sub: id,
      email: "anon-link@example.com",
      is_anonymous: false,
    });

    // The browser takes up the session the link handed it.
    const { error: setError } = await auth.setSession({
      access_token: fragment["access_token"]!,
      refresh_token: fragment["refresh_token"]!,
    });
    expect(setError).toBeNull();
    const { data: got } = await auth.getUser();
    expect(got.user).toMatchObject({ id, email: "anon-link@example.com", is_anonymous: false });
    expect(got.user?.email_confirmed_at).toBeTruthy();
    expect(got.user?.identities?.map((identity) => identity.provider)).toEqual(["email"]);

    expect((await auth.updateUser({ password })).error).toBeNull();
    const signIn = await client(server).signInWithPassword({ email: "anon-link@example.com", password });
    expect(signIn.error).toBeNull();
    expect(signIn.data.user).toMatchObject({ id, is_anonymous: false });
    expect(claimsOf(signIn.data.session!.access_token)["is_anonymous"]).toBe(false);
  });

  it("becomes permanent by verifyOtp with the link's token hash, in the same client", async () => {
    const auth = client(server);
    const id = (await auth.signInAnonymously()).data.user!.id;
    expect((await auth.updateUser({ email: "anon-hash@example.com" })).error).toBeNull();
    const mail = await server.mail.waitFor("anon-hash@example.com");
    const tokenHash = new URL(mail.link!).searchParams.get("token")!;

    const { data, error } = await auth.verifyOtp({ token_hash: tokenHash, type: "email_change" });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ id, email: "anon-hash@example.com", is_anonymous: false });
    expect(claimsOf(data.session!.access_token)["is_anonymous"]).toBe(false);
    expect((await auth.getSession()).data.session?.access_token).toBe(data.session?.access_token);
    expect((await auth.updateUser({ password })).error).toBeNull();
    expect((await client(server).signInWithPassword({ email: "anon-hash@example.com", password })).data.user?.id).toBe(
      id,
    );
  });

  it("may not set a password before it has an email or phone, nor take an address someone holds", async () => {
    const admin = await adminApi(server);
    await admin.createUser({ email: "anon-holder@example.com", password, email_confirm: true });
    const auth = client(server);
    await auth.signInAnonymously();
    const passwordOnly = await auth.updateUser({ password });
    expect(passwordOnly.error).toMatchObject({
      code: "validation_failed",
      message: "Updating password of an anonymous user without an email or phone is not allowed",
    });
    const taken = await auth.updateUser({ email: "anon-holder@example.com" });
    expect(taken.error).toMatchObject({ status: 422, code: "email_exists" });
    expect((await auth.getUser()).data.user).toMatchObject({ is_anonymous: true, email: "" });
  });

  // compat: GoTrue (user.go) answers this refusal 422, where validation_failed is otherwise a 400.
  it("refuses a password-only update of an anonymous user with 422", async () => {
    const auth = client(server);
    await auth.signInAnonymously();
    expect((await auth.updateUser({ password })).error?.status).toBe(422);
  });

  it("becomes permanent by a phone confirmed with the texted code", async () => {
    const phone = "+12025550188";
    const auth = client(server);
    const id = (await auth.signInAnonymously()).data.user!.id;
    const updated = await auth.updateUser({ phone });
    expect(updated.error).toBeNull();
    expect(updated.data.user).toMatchObject({ id, phone: "", is_anonymous: true });
    const sms = await inbox.waitFor(phone);

    const { data, error } = await auth.verifyOtp({ phone, token: sms.code!, type: "phone_change" });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ id, phone, is_anonymous: false });
    expect(data.user?.phone_confirmed_at).toBeTruthy();
    expect(claimsOf(data.session!.access_token)).toMatchObject({ sub: id, phone, is_anonymous: false });
    expect((await auth.updateUser({ password })).error).toBeNull();
    expect((await client(server).signInWithPassword({ phone, password })).data.user).toMatchObject({
      id,
      is_anonymous: false,
    });
  });
});

describe("anonymous sign-ins, limited and disabled", () => {
  let limited: TestServer;
  let disabled: TestServer;
  beforeAll(async () => {
    [limited, disabled] = await Promise.all([
      startTestServer({
        AUTH_EXTERNAL_ANONYMOUS_USERS_ENABLED: "true",
        AUTH_RATE_LIMIT_ANONYMOUS_USERS: "2",
        AUTH_MAILER_AUTOCONFIRM: "true",
      }),
      startTestServer(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([limited?.close(), disabled?.close()]);
  });

  it("refuses the third anonymous sign-in from one IP with 429 over_request_rate_limit", async () => {
    for (let i = 0; i < 2; i++) expect((await client(limited).signInAnonymously()).error).toBeNull();
    const { data, error } = await client(limited).signInAnonymously();
    expect(error?.name).toBe("AuthApiError");
    expect(error).toMatchObject({
      status: 429,
      code: "over_request_rate_limit",
      message: "Request rate limit reached",
    });
    expect(data.session).toBeNull();

    const raw = await limited.fetch("/signup", { method: "POST", json: { data: {} } });
    expect(raw.status).toBe(429);
    expect(raw.headers.get("x-sb-error-code")).toBe("over_request_rate_limit");
    expect(Number(raw.headers.get("retry-after"))).toBeGreaterThan(0);
    // Only anonymous sign-ins are counted against this limit.
    const signUp = await client(limited).signUp({ email: "not-anonymous@example.com", password });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session).toBeTruthy();
    const admin = await adminApi(limited);
    expect((await admin.listUsers()).data.users.filter((user) => user.is_anonymous)).toHaveLength(2);
  });

  it("refuses anonymous sign-ins when they are off, with 422 anonymous_provider_disabled", async () => {
    const { data, error } = await client(disabled).signInAnonymously();
    expect(error).toMatchObject({ status: 422, code: "anonymous_provider_disabled" });
    expect(data.session).toBeNull();
  });
});
