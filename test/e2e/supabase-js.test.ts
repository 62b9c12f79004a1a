import { startTestServer, TEST_JWT_SECRET, type TestServer } from "@latchkey/server/testing";
import { createClient } from "@supabase/supabase-js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { anonKey, serviceRoleKey } from "./support.ts";

const password = "correct horse battery";

/**
 * createClient as an app calls it, with the server's own URL: supabase-js then calls `<url>/auth/v1/...`. On
 * Node 20 its realtime client needs a WebSocket implementation (`ws`); Node 22 has one built in.
 */
function supabase(server: TestServer, key: string) {
  return createClient(server.url, key, {
    realtime: { transport: ws as never },
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
}

describe("supabase-js createClient(url, key), with nothing in front of the server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("signs up, confirms by the mailed code, reads the user, signs out and in again", async () => {
    const client = supabase(server, await anonKey());
    const { data: signedUp, error } = await client.auth.signUp({ email: "js@example.com", password });
    expect(error).toBeNull();
    expect(signedUp.session).toBeNull();
    const mail = await server.mail.waitFor("js@example.com");
    // Mailed links still follow API_EXTERNAL_URL, whatever path the client used.
    expect(mail.link).toMatch(/^http:\/\/localhost:9999\/verify\?/);

    const { data: verified, error: verifyError } = await client.auth.verifyOtp({
      email: "js@example.com",
      token: mail.code!,
      type: "email",
    });
    expect(verifyError).toBeNull();
    expect(verified.session?.user.email).toBe("js@example.com");

    const { data: got } = await client.auth.getUser();
    expect(got.user?.id).toBe(signedUp.user?.id);
    expect(got.user?.email_confirmed_at).toBeTruthy();

    expect((await client.auth.signOut()).error).toBeNull();
    const { data: again, error: signInError } = await client.auth.signInWithPassword({
      email: "js@example.com",
      password,
    });
    expect(signInError).toBeNull();
    expect(again.user?.id).toBe(signedUp.user?.id);
  });

  it("drives the admin API with the service role key", async () => {
    const admin = supabase(server, await serviceRoleKey()).auth.admin;
    const { data: created, error } = await admin.createUser({
      email: "made@example.com",
      password,
      email_confirm: true,
      user_metadata: { plan: "pro" },
    });
    expect(error).toBeNull();
    expect(created.user?.user_metadata).toMatchObject({ plan: "pro" });
    const { data: listed } = await admin.listUsers({ page: 1, perPage: 50 });
    expect(listed.users.map((user) => user.email)).toContain("made@example.com");
    expect((await admin.getUserById(created.user!.id)).data.user?.email).toBe("made@example.com");
    expect((await admin.deleteUser(created.user!.id)).error).toBeNull();
    expect((await admin.getUserById(created.user!.id)).error?.status).toBe(404);
  });

  it("drives the admin API with Supabase's own supabase_admin key, a sub and no exp, which is no user's token", async () => {
    // As the official client's test setup signs it (jsonwebtoken adds iat): docs/compatibility.md, "Tokens and sessions".
    const supabaseAdminKey = await new SignJWT({ sub: "1234567890", role: "supabase_admin" })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt()
      .sign(new TextEncoder().encode(TEST_JWT_SECRET));
    const client = supabase(server, supabaseAdminKey);
    const { data: created, error } = await client.auth.admin.createUser({ email: "keyed@example.com", password });
    expect(error).toBeNull();
    const { data: listed, error: listError } = await client.auth.admin.listUsers();
    expect(listError).toBeNull();
    expect(listed.users.map((user) => user.id)).toContain(created.user?.id);
    // It stands for no session: GET /user refuses it.
    const { error: userError } = await client.auth.getUser(supabaseAdminKey);
    expect(userError).toMatchObject({ status: 403, code: "bad_jwt" });
  });

  it("answers under /auth/v1 exactly as at the root", async () => {
    for (const path of ["/settings", "/auth/v1/settings"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ external: { email: true } });
    }
    expect((await fetch(`${server.url}/auth/v1/no-such-route`)).status).toBe(404);
  });
});
