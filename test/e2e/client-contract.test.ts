import { startTestServer, TEST_JWT_SECRET, type TestServer } from "@latchkey/server/testing";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, claimsOf, client, fragmentOf } from "./support.ts";

// Where the official client, or an app using it, would otherwise see something other than Supabase Auth.
const password = "correct horse battery";
const key = new TextEncoder().encode(TEST_JWT_SECRET);
const sign = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(key);

describe("the client contract", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      AUTH_URI_ALLOW_LIST: "http://localhost:3000/**",
      AUTH_EXTERNAL_PHONE_ENABLED: "true",
      AUTH_SMS_TEST_OTP: "15550100077:777777",
    });
  });
  afterAll(() => server.close());

  describe("amr of a session opened from a mail or an SMS", () => {
    it("is otp for a link or a code in the implicit flow, and the flow's method after a PKCE exchange", async () => {
      const auth = client(server);
      await auth.signUp({ email: "amr@example.com", password });
      const byCode = await auth.verifyOtp({
        email: "amr@example.com",
        token: (await server.mail.waitFor("amr@example.com")).code!,
        type: "email",
      });
      expect(claimsOf(byCode.data.session!.access_token)["amr"]).toEqual([
        { method: "otp", timestamp: expect.any(Number) },
      ]);

      await auth.signInWithOtp({ email: "amr@example.com" });
      const magic = await server.mail.waitFor("amr@example.com", (mail) => mail.subject === "Your sign-in link");
      const landing = fragmentOf(await server.followLink(magic.link!));
      expect(claimsOf(landing["access_token"]!)["amr"]).toEqual([{ method: "otp", timestamp: expect.any(Number) }]);

      const texted = await client(server).signInWithOtp({ phone: "+15550100077" });
      expect(texted.error).toBeNull();
      const { data } = await client(server).verifyOtp({ phone: "+15550100077", token: "777777", type: "sms" });
      expect(claimsOf(data.session!.access_token)["amr"]).toEqual([{ method: "otp", timestamp: expect.any(Number) }]);

      const pkce = client(server, { flowType: "pkce" });
      await pkce.signUp({
        email: "pkce-amr@example.com",
        password,
        options: { emailRedirectTo: "http://localhost:3000/cb" },
      });
      const code = new URL(
        await server.followLink((await server.mail.waitFor("pkce-amr@example.com")).link!),
      ).searchParams.get("code")!;
      const exchanged = await pkce.exchangeCodeForSession(code);
      expect(claimsOf(exchanged.data.session!.access_token)["amr"]).toEqual([
        { method: "email/signup", timestamp: expect.any(Number) },
      ]);
    });
  });

  describe("a passwordless signup", () => {
    it("is confirmed and signed in by verifyOtp with the token hash as type signup, with no password", async () => {
      const auth = client(server);
      expect((await auth.signInWithOtp({ email: "hash@example.com" })).error).toBeNull();
      const tokenHash = new URL((await server.mail.waitFor("hash@example.com")).link!).searchParams.get("token")!;
      const { data, error } = await auth.verifyOtp({ token_hash: tokenHash, type: "signup" });
      expect(error).toBeNull();
      expect(data.session?.user.email_confirmed_at).toBeTruthy();
    });
  });

  describe("signInWithOtp with shouldCreateUser: false", () => {
    it("refuses an address or a number without an account with otp_disabled, sending nothing", async () => {
      const auth = client(server);
      const byMail = await auth.signInWithOtp({ email: "nobody@example.com", options: { shouldCreateUser: false } });
      expect(byMail.error).toMatchObject({ code: "otp_disabled", status: 422, message: "Signups not allowed for otp" });
      const byPhone = await auth.signInWithOtp({ phone: "+15550100088", options: { shouldCreateUser: false } });
      expect(byPhone.error?.code).toBe("otp_disabled");
      expect(server.mail.to("nobody@example.com")).toEqual([]);
    });
  });

  describe("GET and PUT /user", () => {
    it("refuse a token of another audience than JWT_AUD when no X-JWT-AUD names one", async () => {
      const admin = await adminApi(server);
      await admin.createUser({ email: "aud@example.com", password, email_confirm: true });
      const auth = client(server);
      const { data } = await auth.signInWithPassword({ email: "aud@example.com", password });
      const claims = claimsOf(data.session!.access_token);
      const other = await sign({ ...claims, aud: "another-app" });
      const refused = await auth.getUser(other);
      expect(refused.error).toMatchObject({ status: 400, code: "validation_failed" });
      const put = await server.fetch("/user", {
        method: "PUT",
        headers: { authorization: `Bearer ${other}` },
        json: { data: { x: 1 } },
      });
      expect(put.status).toBe(400);
      expect((await auth.getUser(data.session!.access_token)).data.user?.email).toBe("aud@example.com");
    });
  });

  describe("HEAD /verify, as mail scanners send it", () => {
    it("uses nothing up: the GET that follows signs the person in", async () => {
      await client(server).signUp({ email: "scanned@example.com", password });
      const link = (await server.mail.waitFor("scanned@example.com")).link!;
      const url = new URL(link);
      for (let i = 0; i < 3; i++)
        expect((await fetch(`${server.url}${url.pathname}${url.search}`, { method: "HEAD" })).status).toBe(405);
      expect(fragmentOf(await server.followLink(link))).toHaveProperty("access_token");
    });
  });

  describe("API keys", () => {
    it("without exp are taken when they name no user; a user's token without exp is not", async () => {
      const serviceKey = await sign({ role: "service_role", iss: "supabase" });
      const listed = await fetch(`${server.url}/admin/users`, {
        headers: { authorization: `Bearer ${serviceKey}`, apikey: serviceKey },
      });
      expect(listed.status).toBe(200);
      const admin = await adminApi(server);
      const { data } = await admin.createUser({ email: "noexp@example.com", password, email_confirm: true });
      const signedIn = await client(server).signInWithPassword({ email: "noexp@example.com", password });
      const { exp: _exp, ...unexpiring } = claimsOf(signedIn.data.session!.access_token);
      const refused = await server.fetch("/user", { headers: { authorization: `Bearer ${await sign(unexpiring)}` } });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error_code: "bad_jwt" });
      expect(data.user?.id).toBe(unexpiring["sub"]);
    });
  });

  describe("features Latchkey does not have yet", () => {
    it("answer as GoTrue does with them switched off, through the client's own methods", async () => {
      const admin = await adminApi(server);
      const { data: made } = await admin.createUser({ email: "features@example.com", password, email_confirm: true });
      const auth = client(server);
      await auth.signInWithPassword({ email: "features@example.com", password });

      // Phone factors are off by default (MFA_PHONE_ENROLL_ENABLED), and no factor is there to challenge.
      expect((await auth.mfa.enroll({ factorType: "phone", phone: "+15550100099" })).error).toMatchObject({
        status: 422,
        code: "mfa_phone_enroll_not_enabled",
      });
      expect((await auth.mfa.challenge({ factorId: crypto.randomUUID() })).error).toMatchObject({
        status: 404,
        code: "mfa_factor_not_found",
      });
      expect((await auth.mfa.unenroll({ factorId: crypto.randomUUID() })).error?.code).toBe("mfa_factor_not_found");
      expect((await auth.linkIdentity({ provider: "github" })).error).toMatchObject({
        status: 404,
        code: "manual_linking_disabled",
      });
      expect((await auth.signInWithSSO({ domain: "example.com" })).error).toMatchObject({
        status: 404,
        code: "saml_provider_disabled",
      });
      expect((await auth.signInWithIdToken({ provider: "google", token: "a.b.c" })).error).toMatchObject({
        status: 400,
        code: "provider_disabled",
      });
      expect((await admin.mfa.listFactors({ userId: made.user!.id })).data?.factors).toEqual([]);

      const answers = await Promise.all(
        [
          ["GET", "/sso/saml/metadata", 404, "saml_provider_disabled"],
          ["POST", "/passkeys/authentication/options", 404, "passkey_disabled"],
          ["GET", "/.well-known/oauth-authorization-server", 404, "feature_disabled"],
          ["POST", "/oauth/token", 404, "feature_disabled"],
          ["POST", "/token?grant_type=web3", 422, "web3_provider_disabled"],
          ["GET", "/authorize?provider=google", 400, "validation_failed"],
        ].map(async ([method, path, status, code]) => {
          const response = await server.fetch(path as string, {
            method: method as string,
            ...(method === "POST" ? { body: "{}" } : {}),
          });
          return [path, response.status, ((await response.json()) as { error_code: string }).error_code, status, code];
        }),
      );
      for (const [path, status, code, expectedStatus, expectedCode] of answers)
        expect([path, status, code]).toEqual([path, expectedStatus, expectedCode]);

      const jwks = await server.fetch("/.well-known/jwks.json");
      expect(await jwks.json()).toEqual({ keys: [] });
      const callback = await fetch(`${server.url}/callback?state=${crypto.randomUUID()}&code=x`, {
        redirect: "manual",
      });
      expect(callback.status).toBe(303);
      const landing = new URL(callback.headers.get("location")!);
      expect(`${landing.origin}${landing.pathname}`).toBe("http://localhost:3000/");
      expect(Object.fromEntries(landing.searchParams)).toMatchObject({ error_code: "bad_oauth_state" });
    });
  });

  describe("generateLink of type signup", () => {
    it("gives the user the data passed as its user_metadata, and nothing else", async () => {
      const admin = await adminApi(server);
      const { data, error } = await admin.generateLink({
        type: "signup",
        email: "generated@example.com",
        password,
        options: { data: { plan: "pro" } },
      });
      expect(error).toBeNull();
      expect(data.user?.user_metadata).toEqual({ plan: "pro" });
    });
  });

  describe("a phone code with no SMS provider (production profile)", () => {
    it("fails the request with GoTrue's error and creates nothing", async () => {
      const noProvider = await startTestServer({ AUTH_EXTERNAL_PHONE_ENABLED: "true" });
      try {
        expect(noProvider.config.profile).toBe("production");
        // auth-js reads any 5xx as a failure worth retrying, as it does GoTrue's.
        const { error } = await client(noProvider).signInWithOtp({ phone: "+15550100066" });
        expect(error).toMatchObject({ name: "AuthRetryableFetchError", status: 500 });
        const response = await noProvider.fetch("/otp", { method: "POST", json: { phone: "+15550100067" } });
        expect(await response.json()).toMatchObject({
          code: 500,
          error_code: "unexpected_failure",
          msg: "Unable to get SMS provider",
        });
        const admin = await adminApi(noProvider);
        expect((await admin.listUsers()).data.users).toEqual([]);
      } finally {
        await noProvider.close();
      }
    });
  });
});
