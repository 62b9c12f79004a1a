import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, TEST_JWT_SECRET, type TestServer } from "./support/start-test-server.ts";

const key = new TextEncoder().encode(TEST_JWT_SECRET);
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    AUTH_MAILER_AUTOCONFIRM: "true",
    AUTH_JWT_EXP: "10m",
    AUTH_JWT_AUD: "my-app",
    AUTH_JWT_DEFAULT_GROUP_NAME: "member",
    AUTH_JWT_ISSUER: "https://issuer.example.com/auth/v1",
    AUTH_LOG_LEVEL: "warn",
  });
});
afterAll(() => server.close());

describe("access tokens as configured", () => {
  it("honour JWT_EXP, JWT_AUD, JWT_DEFAULT_GROUP_NAME and JWT_ISSUER", async () => {
    const session = (await (
      await server.fetch("/signup", { method: "POST", json: { email: "cfg@example.com", password: "secret-password" } })
    ).json()) as Record<string, any>;
    expect(session.expires_in).toBe(600);
    const { payload } = await server.verifyAccessToken(session.access_token);
    expect(payload).toMatchObject({ aud: "my-app", role: "member", iss: "https://issuer.example.com/auth/v1" });
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(session.user).toMatchObject({ aud: "my-app", role: "member" });
  });

  it("refuse, cleanly, a correctly signed token whose sub or session_id is not a UUID", async () => {
    const exp = Math.floor(Date.now() / 1000) + 60;
    for (const claims of [{ sub: "not-a-uuid" }, { sub: crypto.randomUUID(), session_id: "abc" }, { role: "anon" }]) {
      const token = await new SignJWT({ ...claims, exp }).setProtectedHeader({ alg: "HS256" }).sign(key);
      const response = await server.fetch("/user", { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(403);
      expect(((await response.json()) as Record<string, unknown>)["error_code"]).toBe("bad_jwt");
    }
  });

  it("answer a signed token for a user that does not exist with 403 user_not_found", async () => {
    const token = await new SignJWT({
      sub: crypto.randomUUID(),
      session_id: crypto.randomUUID(),
      exp: Math.floor(Date.now() / 1000) + 60,
    })
      .setProtectedHeader({ alg: "HS256" })
      .sign(key);
    const response = await server.fetch("/user", { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(403);
    expect(((await response.json()) as Record<string, unknown>)["error_code"]).toBe("user_not_found");
  });
});

describe("LOG_LEVEL", () => {
  it("at warn, keeps the per-request info lines out of the log", async () => {
    await server.fetch("/health");
    await server.fetch("/nowhere");
    expect(server.logLines().filter((line) => line["msg"] === "request")).toEqual([]);
  });
});
