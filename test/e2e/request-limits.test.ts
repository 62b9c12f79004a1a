import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, client, fragmentOf } from "./support.ts";

const password = "correct horse battery";

// Per-address limits on /token, /verify and the routes that send, over real sockets: every request here comes from
// 127.0.0.1, or from the address a trusted proxy names in RATE_LIMIT_HEADER.
describe("per-address request limits with the official client", () => {
  let server: TestServer;
  let proxied: TestServer;
  const limits = { AUTH_RATE_LIMIT_TOKEN_REFRESH: "3", AUTH_RATE_LIMIT_VERIFY: "2", AUTH_RATE_LIMIT_OTP: "2" };
  beforeAll(async () => {
    [server, proxied] = await Promise.all([
      startTestServer(limits),
      startTestServer({ ...limits, AUTH_RATE_LIMIT_HEADER: "X-Client-Addr" }),
    ]);
    for (const each of [server, proxied]) {
      const { error } = await (await adminApi(each)).createUser({
        email: "limited@example.com",
        password,
        email_confirm: true,
      });
      expect(error).toBeNull();
    }
  });
  afterAll(async () => {
    await Promise.all([server?.close(), proxied?.close()]);
  });

  it("counts every /token grant from one address, wrong passwords too, and answers the one past the limit with 429", async () => {
    const auth = client(server);
    const wrong = await auth.signInWithPassword({ email: "limited@example.com", password: "a wrong guess" });
    expect(wrong.error).toMatchObject({ status: 400, code: "invalid_credentials" });
    const signedIn = await auth.signInWithPassword({ email: "limited@example.com", password });
    expect(signedIn.error).toBeNull();
    expect((await auth.refreshSession()).error).toBeNull();

    const refused = await client(server).signInWithPassword({ email: "limited@example.com", password });
    expect(refused.error?.name).toBe("AuthApiError");
    expect(refused.error).toMatchObject({
      status: 429,
      code: "over_request_rate_limit",
      message: "Request rate limit reached",
    });
    expect(refused.data.session).toBeNull();

    const raw = await server.fetch("/token?grant_type=refresh_token", {
      method: "POST",
      json: { refresh_token: "anything" },
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get("x-sb-error-code")).toBe("over_request_rate_limit");
    expect(Number(raw.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(raw.headers.get("retry-after"))).toBeLessThanOrEqual(300);
  });

  it("keys on RATE_LIMIT_HEADER behind a proxy: each client its own count, however many share the proxy's socket", async () => {
    const first = client(proxied, { headers: { "X-Client-Addr": "198.51.100.1" } });
    for (let i = 0; i < 3; i++)
      expect((await first.signInWithPassword({ email: "limited@example.com", password })).error).toBeNull();
    expect((await first.signInWithPassword({ email: "limited@example.com", password })).error).toMatchObject({
      status: 429,
    });

    const second = client(proxied, { headers: { "X-Client-Addr": "198.51.100.2, 10.0.0.1" } });
    expect((await second.signInWithPassword({ email: "limited@example.com", password })).error).toBeNull();
  });

  it("limits /verify by code and by link: past the limit a followed link lands on the site with the 429 in its fragment", async () => {
    const auth = client(server);
    for (let i = 0; i < 2; i++) {
      const { error } = await auth.verifyOtp({ email: "limited@example.com", token: "000000", type: "email" });
      expect(error).toMatchObject({ status: 403, code: "otp_expired" });
    }
    const { error } = await auth.verifyOtp({ email: "limited@example.com", token: "000000", type: "email" });
    expect(error).toMatchObject({ status: 429, code: "over_request_rate_limit" });

    const followed = await server.fetch("/verify?type=magiclink&token=not-a-token", { redirect: "manual" });
    expect(followed.status).toBe(303);
    const landing = new URL(followed.headers.get("location")!);
    expect(landing.origin).toBe("http://localhost:3000");
    expect(fragmentOf(landing)).toMatchObject({ error_code: "over_request_rate_limit" });
  });

  it("gives /otp and /recover a count each: /otp spent, a recovery mail is still sent", async () => {
    const auth = client(server);
    // Each counts, refused or not.
    for (let i = 0; i < 2; i++) {
      const { error } = await auth.signInWithOtp({
        email: `otp-${i}@example.com`,
        options: { shouldCreateUser: false },
      });
      expect(error?.code).toBe("otp_disabled");
    }
    const refused = await auth.signInWithOtp({ email: "limited@example.com" });
    expect(refused.error).toMatchObject({ status: 429, code: "over_request_rate_limit" });

    expect((await auth.resetPasswordForEmail("limited@example.com")).error).toBeNull();
    const mail = await server.mail.waitFor("limited@example.com");
    expect(mail.link).toContain("type=recovery");
  });
});
