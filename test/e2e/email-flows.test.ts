import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { GoTrueClient } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, fragmentOf, serviceRoleKey } from "./support.ts";

const password = "correct horse battery";

// Mail goes over SMTP to a real mail server in this process; every link and code below is read out of a mail that
// arrived there, and followed as a person would.
describe("email flows with the official client", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      AUTH_URI_ALLOW_LIST: "http://localhost:3000/**,myapp://callback",
      // One second between requests of a kind, so resend can be shown without long waits.
      AUTH_SMTP_MAX_FREQUENCY: "1",
      AUTH_EXTERNAL_ANONYMOUS_USERS_ENABLED: "true",
    });
  });
  afterAll(() => server.close());

  const waitASecond = () => new Promise((resolve) => setTimeout(resolve, 1100));

  it("signs up, then confirms by following the mailed link, which signs in", async () => {
    const auth = client(server);
    const { data, error } = await auth.signUp({
      email: "link@example.com",
      password,
      options: { emailRedirectTo: "http://localhost:3000/welcome" },
    });
    expect(error).toBeNull();
    expect(data.session).toBeNull();

    const mail = await server.mail.waitFor("link@example.com");
    expect(mail.subject).toBe("Confirm your email address");
    expect(mail.from.address).toBe("auth@example.com");
    expect(mail.html).toContain(mail.link!.replaceAll("&", "&amp;"));
    const landing = await server.followLink(mail.link!);
    expect(`${landing.origin}${landing.pathname}`).toBe("http://localhost:3000/welcome");
    const fragment = fragmentOf(landing);
    expect(fragment).toMatchObject({ token_type: "bearer", type: "signup", expires_in: "3600" });

    const { data: got } = await auth.getUser(fragment["access_token"]);
    expect(got.user?.email_confirmed_at).toBeTruthy();
    expect((await auth.signInWithPassword({ email: "link@example.com", password })).error).toBeNull();
  });

  it("confirms by the code from the mail with verifyOtp", async () => {
    const auth = client(server);
    await auth.signUp({ email: "code@example.com", password });
    const mail = await server.mail.waitFor("code@example.com");
    const { data, error } = await auth.verifyOtp({ email: "code@example.com", token: mail.code!, type: "signup" });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe("code@example.com");
    expect((await auth.getSession()).data.session?.access_token).toBe(data.session?.access_token);
  });

  it("sends the confirmation again with resend, and only the newest one works", async () => {
    const auth = client(server);
    await auth.signUp({ email: "resend@example.com", password });
    const first = await server.mail.waitFor("resend@example.com");
    await waitASecond();
    const { error } = await auth.resend({ type: "signup", email: "resend@example.com" });
    expect(error).toBeNull();
    const second = await server.mail.waitFor("resend@example.com", (mail) => mail.code !== first.code);
    expect(
      (await auth.verifyOtp({ email: "resend@example.com", token: first.code!, type: "signup" })).error?.code,
    ).toBe("otp_expired");
    expect(
      (await auth.verifyOtp({ email: "resend@example.com", token: second.code!, type: "signup" })).error,
    ).toBeNull();
  });

  it("signs in with a magic link, and with its code", async () => {
    const setup = client(server);
    await setup.signUp({ email: "magic@example.com", password });
    await setup.verifyOtp({
      email: "magic@example.com",
      token: (await server.mail.waitFor("magic@example.com")).code!,
      type: "signup",
    });

    const auth = client(server);
    expect(
      (await auth.signInWithOtp({ email: "magic@example.com", options: { shouldCreateUser: false } })).error,
    ).toBeNull();
    const mail = await server.mail.waitFor("magic@example.com", (m) => m.subject === "Your sign-in link");
    expect(fragmentOf(await server.followLink(mail.link!))).toMatchObject({ type: "magiclink" });

    await waitASecond();
    await waitASecond();
    await auth.signInWithOtp({ email: "magic@example.com" });
    const again = await server.mail.waitFor(
      "magic@example.com",
      (m) => m.subject === "Your sign-in link" && m.code !== mail.code,
    );
    const { data, error } = await auth.verifyOtp({ email: "magic@example.com", token: again.code!, type: "email" });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe("magic@example.com");
  });

  it("signs up an unknown address with signInWithOtp, and confirms it by the code", async () => {
    const auth = client(server);
    expect(
      (await auth.signInWithOtp({ email: "otp-new@example.com", options: { data: { source: "otp" } } })).error,
    ).toBeNull();
    const mail = await server.mail.waitFor("otp-new@example.com");
    const { data, error } = await auth.verifyOtp({ email: "otp-new@example.com", token: mail.code!, type: "email" });
    expect(error).toBeNull();
    expect(data.user?.user_metadata).toMatchObject({ source: "otp", email_verified: true });
  });

  it("resets a password: the recovery link signs in, and the new password replaces the old", async () => {
    const setup = client(server);
    await setup.signUp({ email: "forgot@example.com", password });
    await setup.verifyOtp({
      email: "forgot@example.com",
      token: (await server.mail.waitFor("forgot@example.com")).code!,
      type: "signup",
    });

    const auth = client(server);
    expect(
      (await auth.resetPasswordForEmail("forgot@example.com", { redirectTo: "http://localhost:3000/reset" })).error,
    ).toBeNull();
    const mail = await server.mail.waitFor("forgot@example.com", (m) => m.subject === "Reset your password");
    const landing = await server.followLink(mail.link!);
    expect(landing.pathname).toBe("/reset");
    const fragment = fragmentOf(landing);
    expect(fragment["type"]).toBe("recovery");
    await auth.setSession({ access_token: fragment["access_token"]!, refresh_token: fragment["refresh_token"]! });
    expect((await auth.updateUser({ password: "a brand new secret" })).error).toBeNull();
    expect((await client(server).signInWithPassword({ email: "forgot@example.com", password })).error?.code).toBe(
      "invalid_credentials",
    );
    expect(
      (await client(server).signInWithPassword({ email: "forgot@example.com", password: "a brand new secret" })).error,
    ).toBeNull();
  });

  it("answers a recovery for an unknown address like any other, and sends nothing", async () => {
    const before = server.mail.messages.length;
    expect((await client(server).resetPasswordForEmail("nobody@example.com")).error).toBeNull();
    await waitASecond();
    expect(server.mail.messages.length).toBe(before);
    expect(server.mail.to("nobody@example.com")).toEqual([]);
  });

  it("leaves no password someone else chose to an account its owner confirms by magic link or own signup", async () => {
    const attacker = client(server);
    for (const email of ["hijack-magic@example.com", "hijack-signup@example.com"]) {
      expect((await attacker.signUp({ email, password: "the attacker's choice" })).error).toBeNull();
      await server.mail.waitFor(email);
    }
    await waitASecond();

    const owner = client(server);
    await owner.signInWithOtp({ email: "hijack-magic@example.com" });
    await owner.signUp({ email: "hijack-signup@example.com", password });
    for (const email of ["hijack-magic@example.com", "hijack-signup@example.com"]) {
      const mail = await server.mail.waitFor(email, (m) => server.mail.to(email).indexOf(m) > 0);
      expect(fragmentOf(await server.followLink(mail.link!))["access_token"]).toBeTruthy();
      const tried = await client(server).signInWithPassword({ email, password: "the attacker's choice" });
      expect(tried.error?.code).toBe("invalid_credentials");
    }
  });

  it("turns an anonymous user into a permanent one that signs in by the address it confirmed", async () => {
    const auth = client(server);
    const { data: anonymous } = await auth.signInAnonymously();
    expect(anonymous.user?.is_anonymous).toBe(true);
    expect((await auth.updateUser({ email: "converted@example.com" })).error).toBeNull();
    const mail = await server.mail.waitFor("converted@example.com");
    const { data, error } = await auth.verifyOtp({
      email: "converted@example.com",
      token: mail.code!,
      type: "email_change",
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ id: anonymous.user?.id, email: "converted@example.com", is_anonymous: false });
    const claims = JSON.parse(Buffer.from(data.session!.access_token.split(".")[1]!, "base64url").toString());
    expect(claims).toMatchObject({ is_anonymous: false, email: "converted@example.com" });
    expect((await auth.updateUser({ password })).error).toBeNull();
    const again = await client(server).signInWithPassword({ email: "converted@example.com", password });
    expect(again.data.user?.is_anonymous).toBe(false);
  });

  it("changes the email only once both the current and the new address confirmed", async () => {
    const auth = client(server);
    await auth.signUp({ email: "mover@example.com", password });
    await auth.verifyOtp({
      email: "mover@example.com",
      token: (await server.mail.waitFor("mover@example.com")).code!,
      type: "signup",
    });

    const { data, error } = await auth.updateUser({ email: "moved@example.com" });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email: "mover@example.com", new_email: "moved@example.com" });
    expect(data.user?.email_change_sent_at).toBeTruthy();
    const toNew = await server.mail.waitFor("moved@example.com");
    const toCurrent = await server.mail.waitFor(
      "mover@example.com",
      (m) => m.subject === "Confirm your new email address",
    );

    const first = await auth.verifyOtp({ email: "moved@example.com", token: toNew.code!, type: "email_change" });
    expect(first.error).toBeNull();
    expect(first.data.session).toBeNull();
    expect((await auth.getUser()).data.user?.email).toBe("mover@example.com");

    const landing = await server.followLink(toCurrent.link!);
    expect(fragmentOf(landing)).toMatchObject({ type: "email_change" });
    expect((await client(server).signInWithPassword({ email: "moved@example.com", password })).error).toBeNull();
  });

  it("requires the nonce from reauthenticate for a password change when so configured", async () => {
    const strict = await startTestServer({
      AUTH_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: "true",
      AUTH_MAILER_AUTOCONFIRM: "true",
    });
    try {
      const auth = client(strict);
      await auth.signUp({ email: "careful@example.com", password });
      expect((await auth.updateUser({ password: "another secret" })).error?.code).toBe("reauthentication_needed");
      expect((await auth.reauthenticate()).error).toBeNull();
      const mail = await strict.mail.waitFor("careful@example.com");
      expect(mail.subject).toBe(`${mail.code} is your verification code`);
      expect(
        (await auth.updateUser({ password: "another secret", nonce: "000000" === mail.code ? "111111" : "000000" }))
          .error?.code,
      ).toBe("reauthentication_not_valid");
      expect((await auth.updateUser({ password: "another secret", nonce: mail.code! })).error).toBeNull();
    } finally {
      await strict.close();
    }
  });

  it("invites with the admin API, and the invitation link signs the invitee in", async () => {
    const admin = new GoTrueClient({
      url: server.url,
      headers: { Authorization: `Bearer ${await serviceRoleKey()}` },
      persistSession: false,
      autoRefreshToken: false,
    });
    const { data, error } = await admin.admin.inviteUserByEmail("invitee@example.com", {
      data: { team: "red" },
      redirectTo: "http://localhost:3000/join",
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email: "invitee@example.com", user_metadata: { team: "red" } });
    expect(data.user?.invited_at).toBeTruthy();
    const mail = await server.mail.waitFor("invitee@example.com");
    expect(mail.subject).toBe("You've been invited");
    const landing = await server.followLink(mail.link!);
    expect(landing.pathname).toBe("/join");
    expect(fragmentOf(landing)["type"]).toBe("invite");

    const asUser = await server.fetch("/invite", { method: "POST", json: { email: "x@example.com" } });
    expect(asUser.status).toBe(401);
  });

  it("follows PKCE: the link leads to a code that only the requesting client exchanges", async () => {
    const auth = client(server, { flowType: "pkce" });
    await auth.signUp({
      email: "pkce@example.com",
      password,
      options: { emailRedirectTo: "http://localhost:3000/callback" },
    });
    const mail = await server.mail.waitFor("pkce@example.com");
    const token = new URL(mail.link!).searchParams.get("token")!;
    expect(token.startsWith("pkce_")).toBe(true);
    // The link's token on its own gets nowhere.
    expect((await client(server).verifyOtp({ token_hash: token, type: "signup" })).error?.code).toBe(
      "validation_failed",
    );

    const landing = await server.followLink(mail.link!);
    expect(landing.pathname).toBe("/callback");
    const code = landing.searchParams.get("code")!;
    expect(landing.hash).toBe("");
    // Another client, without the verifier, cannot use the code; the client that asked for the link can.
    expect((await client(server, { flowType: "pkce" }).exchangeCodeForSession(code)).error).toBeTruthy();
    const { data, error } = await auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe("pkce@example.com");
    expect((await auth.getUser()).data.user?.email_confirmed_at).toBeTruthy();
  });

  it("changes the email by PKCE: both links lead to the app, the last to a code the client exchanges", async () => {
    const auth = client(server, { flowType: "pkce" });
    await auth.signUp({ email: "pkce-mover@example.com", password });
    const { data: signedUp } = await auth.verifyOtp({
      email: "pkce-mover@example.com",
      token: (await server.mail.waitFor("pkce-mover@example.com")).code!,
      type: "signup",
    });
    // auth-js sends the challenge, then drops the verifier when it saves the updated user (_saveSession), so the
    // requests are made here as it makes them, with a verifier the test keeps.
    const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const updated = await server.fetch(`/user?redirect_to=${encodeURIComponent("http://localhost:3000/changed")}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${signedUp.session!.access_token}` },
      json: {
        email: "pkce-moved@example.com",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "s256",
      },
    });
    expect(updated.status).toBe(200);

    const toOld = await server.mail.waitFor(
      "pkce-mover@example.com",
      (m) => server.mail.to("pkce-mover@example.com").indexOf(m) > 0,
    );
    const toNew = await server.mail.waitFor("pkce-moved@example.com");
    expect(
      [toOld.link, toNew.link].every((link) => new URL(link!).searchParams.get("token")!.startsWith("pkce_")),
    ).toBe(true);
    expect((await server.followLink(toOld.link!)).searchParams.get("code")).toBeNull();
    const landing = await server.followLink(toNew.link!);
    expect(landing.pathname).toBe("/changed");
    const exchanged = await server.fetch("/token?grant_type=pkce", {
      method: "POST",
      json: { auth_code: landing.searchParams.get("code"), code_verifier: verifier },
    });
    expect(exchanged.status).toBe(200);
    expect(await exchanged.json()).toMatchObject({ token_type: "bearer", user: { email: "pkce-moved@example.com" } });
  });

  it("signs in with a PKCE magic link", async () => {
    const setup = client(server);
    await setup.signUp({ email: "pkce-magic@example.com", password });
    await setup.verifyOtp({
      email: "pkce-magic@example.com",
      token: (await server.mail.waitFor("pkce-magic@example.com")).code!,
      type: "signup",
    });
    const auth = client(server, { flowType: "pkce" });
    await auth.signInWithOtp({
      email: "pkce-magic@example.com",
      options: { emailRedirectTo: "http://localhost:3000/callback" },
    });
    const mail = await server.mail.waitFor("pkce-magic@example.com", (m) => m.subject === "Your sign-in link");
    const code = (await server.followLink(mail.link!)).searchParams.get("code")!;
    const { data, error } = await auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe("pkce-magic@example.com");
    expect((await auth.exchangeCodeForSession(code)).error).toBeTruthy();
  });

  it("sends a browser that follows a used link on with the error in the fragment", async () => {
    const auth = client(server);
    await auth.signUp({ email: "twice@example.com", password });
    const mail = await server.mail.waitFor("twice@example.com");
    await server.followLink(mail.link!);
    const landing = await server.followLink(mail.link!);
    expect(fragmentOf(landing)).toEqual({
      error: "access_denied",
      error_code: "otp_expired",
      error_description: "Email link is invalid or has expired",
    });
  });

  it("never redirects where redirect_to asks unless it is allowed", async () => {
    const auth = client(server);
    await auth.signUp({
      email: "evil@example.com",
      password,
      options: { emailRedirectTo: "https://evil.example.net/steal" },
    });
    const mail = await server.mail.waitFor("evil@example.com");
    expect(new URL(mail.link!).searchParams.get("redirect_to")).toBe("http://localhost:3000");
    const landing = await server.followLink(mail.link!);
    expect(landing.origin).toBe("http://localhost:3000");
    // A redirect_to slipped into the link itself is judged again.
    await client(server).signInWithOtp({ email: "evil-two@example.com" });
    const tampered = new URL((await server.mail.waitFor("evil-two@example.com")).link!);
    tampered.searchParams.set("redirect_to", "https://evil.example.net/steal");
    expect((await server.followLink(tampered.toString())).origin).toBe("http://localhost:3000");
  });
});
