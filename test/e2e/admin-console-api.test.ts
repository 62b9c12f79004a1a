import { REQUIRED_SETTINGS, startTestServer, TEST_JWT_SECRET, type TestServer } from "@latchkey/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, anonKey, claimsOf, client, serviceRoleKey } from "./support.ts";

const password = "correct horse battery";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const DB_SECRET = REQUIRED_SETTINGS["AUTH_DB_SECRET"]!;

interface AdminSession {
  readonly id: string;
  readonly user_id: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly refreshed_at: string | null;
  readonly not_after: string | null;
  readonly aal: string;
  readonly factor_id: string | null;
  readonly user_agent: string | null;
  readonly ip: string | null;
}

interface AdminSetting {
  readonly name: string;
  readonly value: string | null;
  readonly source: string;
}

// Latchkey's own admin endpoints, for an admin console (GoTrue has none of them), as the console calls them: fetch
// with the service_role key, against a server on real PostgreSQL; users signed in with the official client.
describe("the admin console's own endpoints", () => {
  let server: TestServer;
  let asAdmin: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    asAdmin = { authorization: `Bearer ${await serviceRoleKey()}` };
  });
  afterAll(() => server.close());

  /** A confirmed user with `password`, made by the admin API. */
  async function confirmedUser(email: string) {
    const { data, error } = await (await adminApi(server)).createUser({ email, password, email_confirm: true });
    expect(error).toBeNull();
    return data.user!;
  }

  it("lists a user's sessions newest first, then signs the user out everywhere", async () => {
    const user = await confirmedUser("twice@example.com");
    const laptop = client(server);
    const phone = client(server);
    const first = (await laptop.signInWithPassword({ email: "twice@example.com", password })).data.session!;
    const second = (await phone.signInWithPassword({ email: "twice@example.com", password })).data.session!;
    // Another user's session is neither listed nor ended.
    await confirmedUser("bystander@example.com");
    const bystander = client(server);
    await bystander.signInWithPassword({ email: "bystander@example.com", password });

    const listed = await server.fetch(`/admin/users/${user.id}/sessions`, { headers: asAdmin });
    expect(listed.status).toBe(200);
    const { sessions } = (await listed.json()) as { sessions: AdminSession[] };
    expect(sessions).toHaveLength(2);
    const sessionIds = [first, second].map((session) => claimsOf(session.access_token)["session_id"]);
    expect(new Set(sessions.map((session) => session.id))).toEqual(new Set(sessionIds));
    expect(Date.parse(sessions[0]!.created_at)).toBeGreaterThanOrEqual(Date.parse(sessions[1]!.created_at));
    for (const session of sessions) {
      expect(Object.keys(session).sort()).toEqual(
        [
          "id",
          "user_id",
          "created_at",
          "updated_at",
          "refreshed_at",
          "not_after",
          "aal",
          "factor_id",
          "user_agent",
          "ip",
        ].sort(),
      );
      expect(session).toMatchObject({
        user_id: user.id,
        aal: "aal1",
        factor_id: null,
        not_after: null,
        refreshed_at: null,
        ip: "127.0.0.1",
      });
      expect(session.created_at).toMatch(ISO);
      expect(session.updated_at).toMatch(ISO);
    }

    // A refresh shows as the session's refreshed_at.
    const refreshed = await laptop.refreshSession();
    expect(refreshed.error).toBeNull();
    const afterRefresh = (await (
      await server.fetch(`/admin/users/${user.id}/sessions`, { headers: asAdmin })
    ).json()) as { sessions: AdminSession[] };
    const laptopSession = afterRefresh.sessions.find((session) => session.id === sessionIds[0])!;
    expect(laptopSession.refreshed_at).toMatch(ISO);

    const signedOut = await server.fetch(`/admin/users/${user.id}/sessions`, { method: "DELETE", headers: asAdmin });
    expect(signedOut.status).toBe(200);
    expect(await signedOut.json()).toEqual({});

    const after = await server.fetch(`/admin/users/${user.id}/sessions`, { headers: asAdmin });
    expect(await after.json()).toEqual({ sessions: [] });
    // Neither refresh token works any more, nor the access tokens.
    for (const refreshToken of [refreshed.data.session!.refresh_token, second.refresh_token]) {
      const { error } = await client(server).refreshSession({ refresh_token: refreshToken });
      expect(error).toMatchObject({ status: 400, code: "refresh_token_not_found" });
    }
    const user403 = await server.fetch("/user", { headers: { authorization: `Bearer ${second.access_token}` } });
    expect(user403.status).toBe(403);
    expect(await user403.json()).toMatchObject({ error_code: "session_not_found" });
    // The bystander is still signed in.
    expect((await bystander.refreshSession()).error).toBeNull();

    // The audit log has the admin's global logout of the user.
    const audit = (await (await server.fetch("/admin/audit?query=action:logout", { headers: asAdmin })).json()) as {
      payload: Record<string, unknown>;
    }[];
    expect(audit[0]?.payload).toMatchObject({
      action: "logout",
      actor_id: "00000000-0000-0000-0000-000000000000",
      actor_username: "service_role",
      traits: { user_id: user.id, user_email: "twice@example.com", scope: "global" },
    });
  });

  it("answers a user that does not exist, or an id that is no uuid, as GET /admin/users/<id> does", async () => {
    const unknown = "7d5a2e3c-1b4f-4a8e-9c6d-0f1e2d3c4b5a";
    for (const method of ["GET", "DELETE"]) {
      const missing = await server.fetch(`/admin/users/${unknown}/sessions`, { method, headers: asAdmin });
      expect(missing.status, method).toBe(404);
      expect(await missing.json()).toMatchObject({ error_code: "user_not_found", msg: "User not found" });

      const reference = await server.fetch("/admin/users/not-a-uuid", { headers: asAdmin });
      const malformed = await server.fetch("/admin/users/not-a-uuid/sessions", { method, headers: asAdmin });
      expect(malformed.status, method).toBe(reference.status);
      const { error_id: _, ...body } = (await malformed.json()) as Record<string, unknown>;
      const { error_id: __, ...referenceBody } = (await reference.json()) as Record<string, unknown>;
      expect(body).toEqual(referenceBody);
    }
  });

  it("shows the settings the server started with, and never a secret", async () => {
    const response = await server.fetch("/admin/settings", { headers: asAdmin });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(TEST_JWT_SECRET);
    expect(text).not.toContain(DB_SECRET);

    const { profile, settings } = JSON.parse(text) as { profile: string; settings: AdminSetting[] };
    expect(profile).toBe("production");
    const byName = (suffix: string) => settings.find((setting) => setting.name.endsWith(suffix));
    expect(byName("SITE_URL")).toEqual({
      name: "AUTH_SITE_URL",
      value: "http://localhost:3000",
      source: "environment",
    });
    expect(byName("_JWT_SECRET")).toEqual({ name: "AUTH_JWT_SECRET", value: "[redacted]", source: "environment" });
    expect(byName("_DB_SECRET")).toEqual({ name: "AUTH_DB_SECRET", value: "[redacted]", source: "environment" });
    for (const setting of settings) {
      expect(Object.keys(setting).sort()).toEqual(["name", "source", "value"]);
      expect(setting.value === null || typeof setting.value === "string").toBe(true);
    }
    // A setting left at its default says so; one with no value is null.
    expect(settings.some((setting) => setting.source === "default")).toBe(true);
    expect(settings.filter((setting) => setting.source === "unset").every((setting) => setting.value === null)).toBe(
      true,
    );
  });

  it("refuses all three to the anon key, a user's token, and a caller without one", async () => {
    const user = await confirmedUser("not-an-admin@example.com");
    const userToken = (await client(server).signInWithPassword({ email: "not-an-admin@example.com", password })).data
      .session!.access_token;
    const routes: [string, string][] = [
      ["GET", `/admin/users/${user.id}/sessions`],
      ["DELETE", `/admin/users/${user.id}/sessions`],
      ["GET", "/admin/settings"],
    ];
    for (const [method, path] of routes) {
      for (const token of [await anonKey(), userToken]) {
        const refused = await server.fetch(path, { method, headers: { authorization: `Bearer ${token}` } });
        expect(refused.status, `${method} ${path}`).toBe(403);
        expect(await refused.json()).toMatchObject({ error_code: "not_admin", msg: "User not allowed" });
      }
      const anonymous = await server.fetch(path, { method });
      expect(anonymous.status, `${method} ${path} without a token`).toBe(401);
      expect(await anonymous.json()).toMatchObject({ error_code: "no_authorization" });
    }
    // The refused DELETE ended nothing: the user's session is still there.
    const listed = (await (await server.fetch(`/admin/users/${user.id}/sessions`, { headers: asAdmin })).json()) as {
      sessions: AdminSession[];
    };
    expect(listed.sessions).toHaveLength(1);
  });
});
