import type { TestAuthOptions } from "@latchkey/domain/testing";
import { describe, expect, it } from "vitest";
import { BY_ENDPOINT } from "../src/errors/error-status.ts";
import { createTestApp, json } from "./support.ts";

// The places where GoTrue answers a code with another status than its usual one (src/errors/error-status.ts).

const password = "secret-password";
const GONE_USER = "0b6f1a2c-3d4e-4f50-8a1b-2c3d4e5f6a7b";
const GONE_SESSION = "1c7a2b3d-4e5f-4a60-9b2c-3d4e5f6a7b8c";

async function answer(response: Response): Promise<{ status: number; error_code: unknown }> {
  return { status: response.status, error_code: (await json(response)).error_code };
}

async function appWithAdmin(options: TestAuthOptions = {}) {
  const app = createTestApp(options);
  const exp = Math.floor(app.clock.now().getTime() / 1000) + 3600;
  const serviceKey = await app.ports.signer.sign({ role: "service_role", exp });
  const admin = (method: string, path: string, body?: unknown) =>
    app.send(method, path, body, { authorization: `Bearer ${serviceKey}` });
  const created = async (body: Record<string, unknown>) => {
    const response = await admin("POST", "/admin/users", { password, ...body });
    expect(response.status).toBe(200);
    return json(response);
  };
  const signedIn = async (credentials: Record<string, unknown>) => {
    const response = await app.send("POST", "/token?grant_type=password", { password, ...credentials });
    expect(response.status).toBe(200);
    return { authorization: `Bearer ${(await json(response)).access_token}` };
  };
  return { ...app, exp, admin, created, signedIn };
}

describe("statuses that depend on the endpoint", () => {
  it("name endpoints of the route table", () => {
    const { app } = createTestApp();
    const routed = new Set(app.routes.map((route) => `${route.method} ${route.path}`));
    for (const endpoint of Object.keys(BY_ENDPOINT)) expect(routed, endpoint).toContain(endpoint);
  });

  it("a banned user is a 400 on /token and a 403 where a token is checked", async () => {
    const app = await appWithAdmin();
    const user = await app.created({ email: "banned@example.com", email_confirm: true });
    const bearer = await app.signedIn({ email: "banned@example.com" });
    await app.admin("PUT", `/admin/users/${user.id}`, { ban_duration: "24h" });
    expect(
      await answer(await app.send("POST", "/token?grant_type=password", { email: "banned@example.com", password })),
    ).toEqual({
      status: 400,
      error_code: "user_banned",
    });
    expect(await answer(await app.send("GET", "/user", undefined, bearer))).toEqual({
      status: 403,
      error_code: "user_banned",
    });
  });

  it("a switched-off provider is a 422 on /token, /otp and /magiclink and a 400 on /signup, /recover and /resend", async () => {
    const { send } = createTestApp({ policy: { signup: { emailEnabled: false, phoneEnabled: false } } });
    const email = { email: "ada@example.com", password };
    const statuses = [
      await answer(await send("POST", "/token?grant_type=password", email)),
      await answer(await send("POST", "/token?grant_type=password", { phone: "+15550100000", password })),
      await answer(await send("POST", "/otp", { email: "ada@example.com" })),
      await answer(await send("POST", "/magiclink", { email: "ada@example.com" })),
      await answer(await send("POST", "/signup", email)),
      await answer(await send("POST", "/recover", { email: "ada@example.com" })),
      await answer(await send("POST", "/resend", { type: "signup", email: "ada@example.com" })),
    ];
    expect(statuses).toEqual([
      { status: 422, error_code: "email_provider_disabled" },
      { status: 422, error_code: "phone_provider_disabled" },
      { status: 422, error_code: "email_provider_disabled" },
      { status: 422, error_code: "email_provider_disabled" },
      { status: 400, error_code: "email_provider_disabled" },
      { status: 400, error_code: "email_provider_disabled" },
      { status: 400, error_code: "email_provider_disabled" },
    ]);
  });

  it("an unconfirmed address is a 422 on /reauthenticate and a 400 on /token", async () => {
    const app = await appWithAdmin();
    await app.created({ phone: "+15550100001", phone_confirm: true, email: "unproven@example.com" });
    const bearer = await app.signedIn({ phone: "+15550100001" });
    expect(await answer(await app.send("GET", "/reauthenticate", undefined, bearer))).toEqual({
      status: 422,
      error_code: "email_not_confirmed",
    });
    expect(
      await answer(await app.send("POST", "/token?grant_type=password", { email: "unproven@example.com", password })),
    ).toEqual({
      status: 400,
      error_code: "email_not_confirmed",
    });
  });
});

describe("statuses that depend on the case", () => {
  it("a token whose user is gone is a 403 on every route that checks it, and a user an admin names that is gone a 404", async () => {
    const app = await appWithAdmin();
    const user = await app.created({ email: "gone@example.com", email_confirm: true });
    const bearer = await app.signedIn({ email: "gone@example.com" });
    await app.admin("DELETE", `/admin/users/${user.id}`);
    const gone = { status: 403, error_code: "user_not_found" };
    expect(await answer(await app.send("GET", "/user", undefined, bearer))).toEqual(gone);
    expect(await answer(await app.send("PUT", "/user", { data: { a: 1 } }, bearer))).toEqual(gone);
    expect(await answer(await app.send("GET", "/reauthenticate", undefined, bearer))).toEqual(gone);
    expect(await answer(await app.send("POST", "/logout", undefined, bearer))).toEqual(gone);
    expect(await answer(await app.admin("GET", `/admin/users/${user.id}`))).toEqual({
      status: 404,
      error_code: "user_not_found",
    });

    const adminOfNobody = await app.ports.signer.sign({
      role: "service_role",
      sub: GONE_USER,
      session_id: GONE_SESSION,
      exp: app.exp,
    });
    const asGone = { authorization: `Bearer ${adminOfNobody}` };
    expect(await answer(await app.send("GET", "/admin/users", undefined, asGone))).toEqual(gone);
    expect(await answer(await app.send("POST", "/invite", { email: "new@example.com" }, asGone))).toEqual(gone);
  });

  it("a token whose session has ended is a 403", async () => {
    const app = await appWithAdmin();
    await app.created({ email: "out@example.com", email_confirm: true });
    const bearer = await app.signedIn({ email: "out@example.com" });
    expect((await app.send("POST", "/logout", undefined, bearer)).status).toBe(204);
    expect(await answer(await app.send("GET", "/user", undefined, bearer))).toEqual({
      status: 403,
      error_code: "session_not_found",
    });
  });

  it("an anonymous user is a 403 on the factor endpoints, before anything else", async () => {
    const { send } = createTestApp({ policy: { signup: { anonymousEnabled: true } } });
    const session = await json(await send("POST", "/signup", {}));
    const bearer = { authorization: `Bearer ${session.access_token}` };
    expect(await answer(await send("POST", "/factors", { factor_type: "totp" }, bearer))).toEqual({
      status: 403,
      error_code: "no_authorization",
    });
    expect(await answer(await send("POST", "/factors", { factor_type: "totp" }))).toEqual({
      status: 401,
      error_code: "no_authorization",
    });
  });

  it("a duplicate signup under autoconfirm is a 400 for a phone and a 422 for an email", async () => {
    const { send } = createTestApp({ policy: { signup: { emailAutoconfirm: true, phoneAutoconfirm: true } } });
    await send("POST", "/signup", { phone: "+15550109000", password });
    await send("POST", "/signup", { email: "dup@example.com", password: "another-password" });
    expect(
      await answer(await send("POST", "/signup", { phone: "+15550109000", password: "another-password" })),
    ).toEqual({
      status: 400,
      error_code: "user_already_exists",
    });
    expect(await answer(await send("POST", "/signup", { email: "dup@example.com", password }))).toEqual({
      status: 422,
      error_code: "user_already_exists",
    });
  });

  it("a password for an anonymous user without an address is a 422, other bad updates a 400", async () => {
    const { send } = createTestApp({ policy: { signup: { anonymousEnabled: true } } });
    const session = await json(await send("POST", "/signup", {}));
    const bearer = { authorization: `Bearer ${session.access_token}` };
    expect(await answer(await send("PUT", "/user", { password }, bearer))).toEqual({
      status: 422,
      error_code: "validation_failed",
    });
    expect(await answer(await send("PUT", "/user", { phone: "+15550100002", channel: "fax" }, bearer))).toEqual({
      status: 400,
      error_code: "validation_failed",
    });
  });

  it("a malformed id in an admin path is a 404, a malformed body a 400", async () => {
    const app = await appWithAdmin();
    const user = await app.created({ email: "named@example.com" });
    const malformed = { status: 404, error_code: "validation_failed" };
    expect(await answer(await app.admin("GET", "/admin/users/not-an-id"))).toEqual(malformed);
    expect(await answer(await app.admin("PUT", "/admin/users/not-an-id", { role: "x" }))).toEqual(malformed);
    expect(await answer(await app.admin("DELETE", "/admin/users/not-an-id"))).toEqual(malformed);
    expect(await answer(await app.admin("GET", "/admin/users/not-an-id/factors"))).toEqual(malformed);
    expect(await answer(await app.admin("DELETE", `/admin/users/${user.id}/factors/not-an-id`))).toEqual(malformed);
    expect(await answer(await app.admin("PUT", `/admin/users/${user.id}`, { ban_duration: "forever" }))).toEqual({
      status: 400,
      error_code: "validation_failed",
    });
  });
});
