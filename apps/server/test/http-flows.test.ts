import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, TEST_JWT_SECRET, type TestServer } from "./support/start-test-server.ts";

const password = "hunter2-unique-password";
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    AUTH_MAILER_AUTOCONFIRM: "true",
    AUTH_EXTERNAL_PHONE_ENABLED: "true",
    AUTH_SMS_AUTOCONFIRM: "true",
  });
});
afterAll(() => server.close());

async function body(response: Response) {
  return (await response.json()) as Record<string, any>;
}

const signUp = async (email: string) =>
  body(await server.fetch("/signup", { method: "POST", json: { email, password } }));

describe("password sessions over HTTP on PostgreSQL", () => {
  it("signs up, signs in, reads and updates the user, refreshes and signs out", async () => {
    const created = await signUp("flow@example.com");
    expect(created.user.email).toBe("flow@example.com");

    const signedIn = await body(
      await server.fetch("/token?grant_type=password", {
        method: "POST",
        json: { email: "FLOW@example.com", password },
      }),
    );
    const auth = { authorization: `Bearer ${signedIn.access_token}` };
    expect(await body(await server.fetch("/user", { headers: auth }))).toMatchObject({
      id: created.user.id,
      email: "flow@example.com",
    });

    const updated = await body(
      await server.fetch("/user", { method: "PUT", headers: auth, json: { data: { locale: "fr" } } }),
    );
    expect(updated.user_metadata).toMatchObject({ locale: "fr", email_verified: true });

    const refreshed = await body(
      await server.fetch("/token?grant_type=refresh_token", {
        method: "POST",
        json: { refresh_token: signedIn.refresh_token },
      }),
    );
    expect(refreshed.user.user_metadata.locale).toBe("fr");
    expect(refreshed.refresh_token).not.toBe(signedIn.refresh_token);

    expect((await server.fetch("/logout", { method: "POST", headers: auth })).status).toBe(204);
    expect((await server.fetch("/user", { headers: auth })).status).toBe(403);
  });

  it("issues access tokens with GoTrue's claims, signed HS256 with JWT_SECRET (RS256 in the development profile)", async () => {
    const session = await signUp("claims@example.com");
    const { payload, protectedHeader } = await server.verifyAccessToken(session.access_token);
    expect(protectedHeader.alg).toBe(server.config.profile === "production" ? "HS256" : "RS256");
    expect(payload).toEqual({
      iss: "http://localhost:9999",
      sub: session.user.id,
      aud: "authenticated",
      exp: expect.any(Number),
      iat: expect.any(Number),
      email: "claims@example.com",
      phone: "",
      app_metadata: { provider: "email", providers: ["email"] },
      user_metadata: session.user.user_metadata,
      role: "authenticated",
      aal: "aal1",
      amr: [{ method: "password", timestamp: expect.any(Number) }],
      session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      is_anonymous: false,
    });
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(session.expires_in).toBe(3600);
    expect(session.expires_at).toBe(payload.exp);
  });

  it("fails an unknown address and a wrong password alike", async () => {
    await signUp("known@example.com");
    const unknown = await server.fetch("/token?grant_type=password", {
      method: "POST",
      json: { email: "unknown@example.com", password },
    });
    const wrong = await server.fetch("/token?grant_type=password", {
      method: "POST",
      json: { email: "known@example.com", password: "not-it-at-all" },
    });
    expect([unknown.status, wrong.status]).toEqual([400, 400]);
    expect(await body(unknown)).toEqual(await body(wrong));
  });

  it("creates one user when twenty signups race for one address", async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        server.fetch("/signup", { method: "POST", json: { email: "race@example.com", password } }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 422)).toHaveLength(19);
    const { schema } = server.db;
    const [row] = await server.db.db
      .select({ n: count() })
      .from(schema.users)
      .where(eq(schema.users.email, "race@example.com"));
    expect(row?.n).toBe(1);
  });

  it("signs up by phone and stores E.164", async () => {
    const session = await body(
      await server.fetch("/signup", { method: "POST", json: { phone: "+1 555-010-7777", password } }),
    );
    expect(session.user.phone).toBe("+15550107777");
    const byPhone = await server.fetch("/token?grant_type=password", {
      method: "POST",
      json: { phone: "15550107777", password },
    });
    expect(byPhone.status).toBe(200);
  });
});

describe("audit entries over HTTP", () => {
  it("record the client's address and user agent with each event, in the transaction of the change", async () => {
    const session = await body(
      await server.fetch("/signup", {
        method: "POST",
        headers: { "user-agent": "audit-agent/1.0" },
        json: { email: "audited@example.com", password },
      }),
    );
    const { schema } = server.db;
    const rows = await server.db.db
      .select()
      .from(schema.auditLogEntries)
      .where(eq(schema.auditLogEntries.actorId, session.user.id));
    expect(rows.map((row) => row.action).sort()).toEqual(["login", "user_signedup"]);
    for (const row of rows)
      expect(row).toMatchObject({
        ipAddress: "127.0.0.1",
        userAgent: "audit-agent/1.0",
        actorUsername: "audited@example.com",
      });
  });
});

describe("sign out by scope over HTTP", () => {
  it("ends the other sessions with scope=others and keeps the caller's", async () => {
    await signUp("scopes@example.com");
    const signIn = async () =>
      body(
        await server.fetch("/token?grant_type=password", {
          method: "POST",
          json: { email: "scopes@example.com", password },
        }),
      );
    const [mine, other] = [await signIn(), await signIn()];
    const as = (session: Record<string, any>) => ({ authorization: `Bearer ${session.access_token}` });
    expect((await server.fetch("/logout?scope=others", { method: "POST", headers: as(mine) })).status).toBe(204);
    expect((await server.fetch("/user", { headers: as(mine) })).status).toBe(200);
    expect((await server.fetch("/user", { headers: as(other) })).status).toBe(403);
    expect((await server.fetch("/logout?scope=local", { method: "POST", headers: as(mine) })).status).toBe(204);
    expect((await server.fetch("/user", { headers: as(mine) })).status).toBe(403);
  });
});

describe("refresh-token rotation on PostgreSQL", () => {
  const refresh = (token: string) =>
    server.fetch("/token?grant_type=refresh_token", { method: "POST", json: { refresh_token: token } });

  it("gives every one of many concurrent refreshes of one token the same child, and creates exactly one", async () => {
    const session = await signUp("concurrent@example.com");
    const responses = await Promise.all(Array.from({ length: 30 }, () => refresh(session.refresh_token)));
    expect(responses.map((response) => response.status)).toEqual(Array(30).fill(200));
    const tokens = new Set(await Promise.all(responses.map(async (response) => (await body(response)).refresh_token)));
    expect(tokens.size).toBe(1);

    const { schema } = server.db;
    const [sessionRow] = await server.db.db
      .select()
      .from(schema.sessions)
      .where(eq(schema.sessions.userId, session.user.id));
    const [tokenCount] = await server.db.db
      .select({ n: count() })
      .from(schema.refreshTokens)
      .where(eq(schema.refreshTokens.sessionId, sessionRow!.id));
    expect(tokenCount?.n).toBe(2);
    expect((await refresh([...tokens][0]!)).status).toBe(200);
  });

  it("ends the session when an older token is replayed, and that stays although the request failed", async () => {
    const session = await signUp("replay@example.com");
    const child = await body(await refresh(session.refresh_token));
    const grandchild = await body(await refresh(child.refresh_token));

    const replay = await refresh(session.refresh_token);
    expect(replay.status).toBe(400);
    expect((await body(replay)).error_code).toBe("refresh_token_already_used");

    const { schema } = server.db;
    const rows = await server.db.db.select().from(schema.sessions).where(eq(schema.sessions.userId, session.user.id));
    expect(rows).toEqual([]);
    expect((await body(await refresh(grandchild.refresh_token))).error_code).toBe("refresh_token_not_found");
    const withStolenAccess = await server.fetch("/user", {
      headers: { authorization: `Bearer ${grandchild.access_token}` },
    });
    expect([withStolenAccess.status, (await body(withStolenAccess)).error_code]).toEqual([403, "session_not_found"]);
  });

  it("stores refresh tokens only as digests", async () => {
    const session = await signUp("digest@example.com");
    const { schema } = server.db;
    const rows = await server.db.db.select().from(schema.refreshTokens);
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(session.refresh_token);
  });
});

describe("bans", () => {
  it("keep a banned user from signing in, refreshing and reading the user", async () => {
    const session = await signUp("banned@example.com");
    const user = (await server.db.stores.users.findById(session.user.id))!;
    await server.db.stores.users.update({ ...user, bannedUntil: new Date(Date.now() + 3_600_000) });
    const signIn = await server.fetch("/token?grant_type=password", {
      method: "POST",
      json: { email: "banned@example.com", password },
    });
    expect([signIn.status, (await body(signIn)).error_code]).toEqual([400, "user_banned"]);
    expect((await refresh(session.refresh_token)).status).toBe(400);
    const getUser = await server.fetch("/user", { headers: { authorization: `Bearer ${session.access_token}` } });
    expect([getUser.status, (await body(getUser)).error_code]).toEqual([403, "user_banned"]);
  });

  const refresh = (token: string) =>
    server.fetch("/token?grant_type=refresh_token", { method: "POST", json: { refresh_token: token } });
});

describe("logs", () => {
  it("never carry a password, an access token or a refresh token", async () => {
    const session = await signUp("quiet@example.com");
    await server.fetch("/user", { headers: { authorization: `Bearer ${session.access_token}` } });
    await server.fetch("/token?grant_type=refresh_token", {
      method: "POST",
      json: { refresh_token: session.refresh_token },
    });
    const text = server.logText();
    const paths = server.logLines().map((line) => line["path"]);
    expect(paths).toEqual(expect.arrayContaining(["/signup", "/user", "/token"])); // the log is being read at all
    for (const secret of [password, session.access_token, session.refresh_token, TEST_JWT_SECRET])
      expect(text).not.toContain(secret);
  });
});

describe("metadata PostgreSQL cannot store", () => {
  it.each([
    ["a NUL character in a value", '{"note":"a\\u0000b"}'],
    ["a NUL character in a key", '{"a\\u0000":1}'],
    ["a lone surrogate", '{"note":"\\ud800"}'],
  ])("is refused with 400 validation_failed: %s", async (_label, data) => {
    const response = await server.fetch("/signup", {
      method: "POST",
      body: `{"email":"nul-${Math.random().toString(36).slice(2)}@example.com","password":"${password}","data":${data}}`,
    });
    expect(response.status).toBe(400);
    expect((await body(response)).error_code).toBe("validation_failed");
  });
});
