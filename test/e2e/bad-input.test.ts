import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, serviceRoleKey } from "./support.ts";

// Every input of every route that could reach PostgreSQL, sent the values PostgreSQL cannot store or a client has
// no business sending, against a server on real PostgreSQL: each answer is a clean 4xx in the error shape.
const NUL = "a\u0000b";
const LONE_SURROGATE = "\ud800x";
const LONG = "x".repeat(100_000);
const BAD_STRINGS = [NUL, LONE_SURROGATE, LONG];
const WRONG_TYPES = [42, true, ["a"], { a: 1 }];
// The same in a query string: %00, an encoded lone surrogate (not UTF-8), and a long value.
const BAD_QUERY_VALUES = ["%00", "%ED%A0%80", "x".repeat(8_000), "%FF"];

interface Route {
  readonly method: string;
  readonly path: string;
  readonly body?: Record<string, unknown>;
  readonly auth?: "user" | "admin";
  /** Query parameters that reach storage or a parser. */
  readonly query?: readonly string[];
}

describe("bad input never reaches a 500", () => {
  let server: TestServer;
  let userToken: string;
  let adminKey: string;
  let userId: string;
  beforeAll(async () => {
    // Every number here has a fixed code, so nothing needs an SMS provider.
    const numbers = [0, 1, 2, 3, 4].map((n) => `1555010000${n}:123456`).join(",");
    server = await startTestServer({ AUTH_EXTERNAL_PHONE_ENABLED: "true", AUTH_SMS_TEST_OTP: numbers });
    adminKey = await serviceRoleKey();
    const admin = await adminApi(server);
    const { data } = await admin.createUser({
      email: "someone@example.com",
      password: "correct horse",
      email_confirm: true,
    });
    userId = data.user!.id;
    const signedIn = await server.fetch("/token?grant_type=password", {
      method: "POST",
      json: { email: "someone@example.com", password: "correct horse" },
    });
    userToken = ((await signedIn.json()) as { access_token: string }).access_token;
  });
  afterAll(() => server.close());

  const routes = (): Route[] => [
    {
      method: "POST",
      path: "/signup",
      body: {
        email: "new@example.com",
        password: "long enough pw",
        data: {},
        code_challenge: "c".repeat(43),
        code_challenge_method: "s256",
      },
    },
    { method: "POST", path: "/signup", body: { phone: "+15550100001", password: "long enough pw", channel: "sms" } },
    {
      method: "POST",
      path: "/token?grant_type=password",
      body: { email: "someone@example.com", password: "correct horse" },
    },
    { method: "POST", path: "/token?grant_type=refresh_token", body: { refresh_token: "abcdefghijkl" } },
    { method: "POST", path: "/token?grant_type=pkce", body: { auth_code: "x", code_verifier: "y".repeat(43) } },
    {
      method: "POST",
      path: "/verify",
      body: { type: "signup", token: "123456", email: "someone@example.com", password: "long enough pw" },
    },
    { method: "POST", path: "/verify", body: { type: "sms", token: "123456", phone: "+15550100000" } },
    { method: "POST", path: "/verify", body: { type: "signup", token_hash: "abc" } },
    { method: "GET", path: "/verify", query: ["token", "type", "redirect_to"] },
    { method: "POST", path: "/otp", body: { email: "otp@example.com", data: {}, create_user: true } },
    { method: "POST", path: "/otp", body: { phone: "+15550100002", channel: "sms" } },
    { method: "POST", path: "/magiclink", body: { email: "magic@example.com" } },
    { method: "POST", path: "/recover", body: { email: "someone@example.com" } },
    { method: "POST", path: "/resend", body: { type: "signup", email: "someone@example.com" } },
    {
      method: "PUT",
      path: "/user",
      auth: "user",
      body: {
        email: "moved@example.com",
        phone: "+15550100003",
        password: "another long pw",
        data: {},
        nonce: "123456",
      },
    },
    { method: "POST", path: "/logout", auth: "user", query: ["scope"] },
    { method: "POST", path: "/invite", auth: "admin", body: { email: "invited@example.com", data: {} } },
    {
      method: "GET",
      path: "/admin/users",
      auth: "admin",
      query: ["page", "per_page", "sort", "filter", "email", "phone"],
    },
    { method: "GET", path: "/admin/audit", auth: "admin", query: ["page", "per_page", "query"] },
    {
      method: "POST",
      path: "/admin/users",
      auth: "admin",
      body: {
        email: "made@example.com",
        phone: "+15550100004",
        password: "long enough pw",
        aud: "authenticated",
        role: "authenticated",
        user_metadata: {},
        app_metadata: {},
        ban_duration: "1h",
        id: crypto.randomUUID(),
      },
    },
    {
      method: "PUT",
      path: `/admin/users/${userId}`,
      auth: "admin",
      body: {
        email: "renamed@example.com",
        role: "authenticated",
        user_metadata: {},
        app_metadata: {},
        ban_duration: "none",
        password: "long enough pw",
      },
    },
    {
      method: "DELETE",
      path: `/admin/users/${crypto.randomUUID()}`,
      auth: "admin",
      body: { should_soft_delete: true },
    },
    {
      method: "POST",
      path: "/admin/generate_link",
      auth: "admin",
      body: {
        type: "email_change_new",
        email: "someone@example.com",
        new_email: "next@example.com",
        data: {},
        redirect_to: "http://localhost:3000",
      },
    },
  ];

  async function send(route: Route, body: unknown, path = route.path) {
    const token = route.auth === "user" ? userToken : route.auth === "admin" ? adminKey : undefined;
    return server.fetch(path, {
      method: route.method,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  async function expectClean(response: Response, what: string) {
    const text = await response.text();
    expect(response.status, `${what}: ${text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
    expect(response.status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(typeof body["error_code"] === "string" || typeof body["error"] === "string", what).toBe(true);
  }

  it("in any string field of any body", async () => {
    for (const route of routes()) {
      for (const [field, original] of Object.entries(route.body ?? {})) {
        // A field that holds an object (data, metadata) also gets the bad strings inside it, as value and as key.
        const nested = typeof original === "object" ? BAD_STRINGS.flatMap((bad) => [{ key: bad }, { [bad]: 1 }]) : [];
        for (const value of [...BAD_STRINGS, ...WRONG_TYPES, ...nested]) {
          const response = await send(route, { ...route.body, [field]: value });
          // A value the route takes is no bug here (a number as a password is refused, a long one may be fine).
          if (response.status < 400) continue;
          await expectClean(response, `${route.method} ${route.path} ${field}=${JSON.stringify(value).slice(0, 40)}`);
        }
      }
    }
  }, 120_000);

  it("in any query parameter", async () => {
    for (const route of routes()) {
      for (const name of route.query ?? []) {
        for (const bad of BAD_QUERY_VALUES) {
          const separator = route.path.includes("?") ? "&" : "?";
          const response = await send(
            route,
            route.method === "GET" ? undefined : {},
            `${route.path}${separator}${name}=${bad}`,
          );
          if (route.path === "/verify" && response.status === 303) continue; // a followed link answers by redirect
          if (response.status < 400) continue;
          await expectClean(response, `${route.method} ${route.path}?${name}=${bad.slice(0, 20)}`);
        }
      }
    }
  }, 120_000);

  it("in a path id", async () => {
    for (const id of ["%00", "%ED%A0%80", "not-a-uuid", "x".repeat(5_000), "..%2F..%2Fetc"]) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const response = await server.fetch(`/admin/users/${id}`, {
          method,
          headers: { authorization: `Bearer ${adminKey}` },
          ...(method === "PUT" ? { body: "{}" } : {}),
        });
        await expectClean(response, `${method} /admin/users/${id.slice(0, 20)}`);
      }
    }
    expect(userId).toBeTruthy();
  });
});
