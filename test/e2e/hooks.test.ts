import { randomBytes } from "node:crypto";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { httpHook, type Receiver, secretOf, sessionCount, startReceiver } from "./hooks-support.ts";
import { adminApi, claimsOf, client } from "./support.ts";

// GoTrue's hooks end to end, through the official client: an HTTP receiver that checks every call's Standard
// Webhooks signature, and functions in the server's own database.

const password = "correct horse battery";
const address = (name: string) => `${name}-${randomBytes(4).toString("hex")}@example.com`;

describe("HTTP hooks", () => {
  // Two secrets configured, the receiver knows the newer: a rotation in progress.
  const oldSecret = secretOf();
  const newSecret = secretOf();
  let receiver: Receiver;
  let server: TestServer;

  beforeAll(async () => {
    receiver = await startReceiver(newSecret);
    receiver.on("/claims", (payload) => ({
      status: 200,
      body: { claims: { ...payload["claims"], user_role: "member", method_seen: payload["authentication_method"] } },
    }));
    receiver.on("/before-created", (payload) =>
      String(payload["user"]?.["email"]).startsWith("outsider")
        ? { status: 200, body: { error: { http_code: 403, message: "Only members may sign up" } } }
        : { status: 204 },
    );
    receiver.on("/password", (payload) =>
      payload["valid"] === true && blocked.has(payload["user_id"])
        ? { status: 200, body: { decision: "reject", message: "This account is locked" } }
        : { status: 200, body: { decision: "continue" } },
    );
    const hook = (name: string, path: string) => httpHook(receiver, name, path, `${oldSecret}|${newSecret}`);
    server = await startTestServer({
      AUTH_MAILER_AUTOCONFIRM: "true",
      AUTH_EXTERNAL_ANONYMOUS_USERS_ENABLED: "true",
      ...hook("CUSTOM_ACCESS_TOKEN", "/claims"),
      ...hook("BEFORE_USER_CREATED", "/before-created"),
      ...hook("AFTER_USER_CREATED", "/after-created"),
      ...hook("PASSWORD_VERIFICATION_ATTEMPT", "/password"),
    });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });
  const blocked = new Set<string>();
  const callsTo = (path: string) => receiver.callsTo(path);

  it("puts the hook's claims in the tokens of a signup, a password sign-in and a refresh, each call signed", async () => {
    const auth = client(server);
    const email = address("member");
    const { data: signedUp, error } = await auth.signUp({ email, password });
    expect(error).toBeNull();
    expect(claimsOf(signedUp.session!.access_token)).toMatchObject({ user_role: "member", method_seen: "password" });

    const { data: signedIn } = await auth.signInWithPassword({ email, password });
    expect(claimsOf(signedIn.session!.access_token)).toMatchObject({ user_role: "member", email });
    const { data: refreshed } = await auth.refreshSession();
    expect(claimsOf(refreshed.session!.access_token)).toMatchObject({
      user_role: "member",
      method_seen: "token_refresh",
    });
    // The token still verifies, and the client reads its user with it.
    await server.verifyAccessToken(refreshed.session!.access_token);
    expect((await auth.getUser()).data.user?.email).toBe(email);

    const claimsCalls = callsTo("/claims");
    expect(claimsCalls.every((call) => call.verified)).toBe(true);
    expect(claimsCalls.at(-1)?.payload).toMatchObject({
      metadata: { name: "customize-access-token", ip_address: "127.0.0.1" },
      user_id: signedUp.user!.id,
      claims: { sub: signedUp.user!.id, aud: "authenticated", role: "authenticated", aal: "aal1" },
      authentication_method: "token_refresh",
    });
  });

  it("asks before every user is created and tells after, with GoTrue's user", async () => {
    const auth = client(server);
    const email = address("member");
    const { data } = await auth.signUp({ email, password });
    const before = callsTo("/before-created").find((call) => call.payload["user"]?.["email"] === email);
    const after = callsTo("/after-created").find((call) => call.payload["user"]?.["email"] === email);
    expect(before?.payload).toMatchObject({
      metadata: { name: "before-user-created" },
      user: { email, aud: "authenticated", app_metadata: { provider: "email" } },
    });
    expect(after?.payload["user"]?.["id"]).toBe(data.user!.id);
    // An anonymous sign-in creates a user too.
    const anonymous = await client(server).signInAnonymously();
    const created = callsTo("/after-created").map((call) => call.payload["user"]?.["id"]);
    expect(created).toContain(anonymous.data.user!.id);
  });

  it("refuses a sign-up the hook rejects, with its status and words, and creates nothing", async () => {
    const email = address("outsider");
    const { data, error } = await client(server).signUp({ email, password });
    expect(data.user).toBeNull();
    expect(error).toMatchObject({ status: 403, message: "Only members may sign up" });
    const admin = await adminApi(server);
    const { data: listed } = await admin.listUsers({ perPage: 1000 });
    expect(listed.users.map((user) => user.email)).not.toContain(email);
  });

  it("lets the password hook reject a right password", async () => {
    const auth = client(server);
    const email = address("member");
    const { data } = await auth.signUp({ email, password });
    blocked.add(data.user!.id);
    const { error } = await client(server).signInWithPassword({ email, password });
    expect(error).toMatchObject({ status: 400, code: "invalid_credentials", message: "This account is locked" });
    const wrong = await client(server).signInWithPassword({ email, password: "wrong password here" });
    expect(wrong.error).toMatchObject({ status: 400, message: "Invalid login credentials" });
    expect(callsTo("/password").at(-1)?.payload).toMatchObject({
      metadata: { name: "password-verification" },
      user_id: data.user!.id,
      valid: false,
    });
  });

  it("fails a sign-in cleanly when the hook fails, and writes no session", async () => {
    const auth = client(server);
    const email = address("member");
    await auth.signUp({ email, password });
    await auth.signOut();
    receiver.on("/claims", () => ({ status: 500, body: { oops: true } }));
    try {
      const { data, error } = await client(server).signInWithPassword({ email, password });
      expect(data.session).toBeNull();
      // auth-js reads no body of a 500 (it takes it for retryable): GoTrue's words are in the answer, as GoTrue's are.
      expect(error).toMatchObject({ name: "AuthRetryableFetchError", status: 500 });
      const answer = await server.fetch("/token?grant_type=password", { method: "POST", json: { email, password } });
      expect([answer.status, await answer.json()]).toEqual([
        500,
        expect.objectContaining({
          error_code: "unexpected_failure",
          msg: "Unexpected status code returned from hook: 500",
        }),
      ]);
    } finally {
      receiver.on("/claims", (payload) => ({
        status: 200,
        body: { claims: { ...payload["claims"], user_role: "member" } },
      }));
    }
    const admin = await adminApi(server);
    const { data: listed } = await admin.listUsers({ perPage: 1000 });
    const user = listed.users.find((each) => each.email === email)!;
    expect(await sessionCount(server, user.id)).toBe(0);
  });
});

describe("HTTP hooks that answer late or badly", () => {
  const secret = secretOf();
  let receiver: Receiver;
  let server: TestServer;
  // How the claims hook answers: as it should, past GoTrue's 5 s, or with a web page.
  let answering: "well" | "late" | "html" = "well";

  beforeAll(async () => {
    receiver = await startReceiver(secret);
    receiver.on("/claims", (payload) => {
      const claims = { status: 200, body: { claims: payload["claims"] } };
      if (answering === "late") return { ...claims, delayMs: 6_000 };
      if (answering === "html") {
        return { status: 200, contentType: "text/html; charset=utf-8", body: "<html><body>It works!</body></html>" };
      }
      return claims;
    });
    server = await startTestServer({
      AUTH_MAILER_AUTOCONFIRM: "true",
      ...httpHook(receiver, "CUSTOM_ACCESS_TOKEN", "/claims", secret),
    });
  });
  afterEach(() => {
    answering = "well";
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  /** A user signed up (the hook answering well) and signed out again: none of their sessions left. */
  async function signedOutUser(): Promise<{ email: string; userId: string }> {
    const auth = client(server);
    const email = address("member");
    const { data, error } = await auth.signUp({ email, password });
    expect(error).toBeNull();
    expect((await auth.signOut()).error).toBeNull();
    expect(await sessionCount(server, data.user!.id)).toBe(0);
    return { email, userId: data.user!.id };
  }

  it("fails a sign-in whose hook does not answer within GoTrue's 5 s, once asked, and writes no session", async () => {
    const { email, userId } = await signedOutUser();
    const before = receiver.callsTo("/claims").length;
    answering = "late";
    const started = Date.now();
    const { data, error } = await client(server).signInWithPassword({ email, password });
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(data.session).toBeNull();
    expect(error).toMatchObject({
      status: 422,
      code: "hook_timeout",
      message: "Failed to reach hook within maximum time of 5.000000 seconds",
    });
    // A hook that was reached but did not answer is not asked again.
    expect(receiver.callsTo("/claims").length).toBe(before + 1);
    expect(await sessionCount(server, userId)).toBe(0);
  });

  it("refuses an answer that is no JSON, and writes no session", async () => {
    const { email, userId } = await signedOutUser();
    answering = "html";
    const { data, error } = await client(server).signInWithPassword({ email, password });
    expect(data.session).toBeNull();
    expect(error).toMatchObject({
      status: 400,
      code: "hook_payload_invalid_content_type",
      message: "Invalid JSON response. Received content-type: text/html; charset=utf-8",
    });
    expect(await sessionCount(server, userId)).toBe(0);
  });
});

describe("Postgres function hooks", () => {
  let server: TestServer;
  const schema = `hooks_${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    server = await startTestServer({
      AUTH_MAILER_AUTOCONFIRM: "true",
      AUTH_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED: "true",
      AUTH_HOOK_CUSTOM_ACCESS_TOKEN_URI: `pg-functions://postgres/${schema}/custom_access_token`,
      AUTH_HOOK_BEFORE_USER_CREATED_ENABLED: "true",
      AUTH_HOOK_BEFORE_USER_CREATED_URI: `pg-functions://postgres/${schema}/before_user_created`,
      AUTH_HOOK_AFTER_USER_CREATED_ENABLED: "true",
      AUTH_HOOK_AFTER_USER_CREATED_URI: `pg-functions://postgres/${schema}/after_user_created`,
    });
    // As Supabase's docs write them: the claims from a table of the app's, and a sign-up rule that raises.
    const statements = [
      `CREATE SCHEMA ${schema}`,
      `CREATE TABLE ${schema}.user_roles (user_id uuid PRIMARY KEY, role text NOT NULL)`,
      `CREATE FUNCTION ${schema}.custom_access_token(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
         DECLARE claims jsonb := event->'claims';
         DECLARE found text;
         BEGIN
           SELECT role INTO found FROM ${schema}.user_roles WHERE user_id = (event->>'user_id')::uuid;
           claims := jsonb_set(claims, '{user_role}', to_jsonb(coalesce(found, 'none')));
           RETURN jsonb_build_object('claims', claims);
         END $$`,
      `CREATE FUNCTION ${schema}.before_user_created(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
         BEGIN
           IF event->'user'->>'email' LIKE 'banned%' THEN
             RAISE EXCEPTION 'Addresses like this one may not sign up';
           END IF;
           RETURN '{}'::jsonb;
         END $$`,
      // A profile row for every user created, as apps keep one.
      `CREATE TABLE ${schema}.profiles (user_id uuid PRIMARY KEY, email text)`,
      `CREATE FUNCTION ${schema}.after_user_created(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
         BEGIN
           INSERT INTO ${schema}.profiles VALUES ((event->'user'->>'id')::uuid, event->'user'->>'email');
           RETURN '{}'::jsonb;
         END $$`,
    ];
    for (const statement of statements) await server.db.db.execute(sql.raw(statement));
  });
  afterAll(async () => {
    await server?.db.db.execute(sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    await server?.close();
  });

  it("puts what the function reads into the token", async () => {
    const auth = client(server);
    const email = address("member");
    const { data } = await auth.signUp({ email, password });
    expect(claimsOf(data.session!.access_token)["user_role"]).toBe("none");
    await server.db.db.execute(sql.raw(`INSERT INTO ${schema}.user_roles VALUES ('${data.user!.id}', 'editor')`));
    const { data: refreshed } = await auth.refreshSession();
    expect(claimsOf(refreshed.session!.access_token)["user_role"]).toBe("editor");
  });

  it("refuses a sign-up the function raises on, in its words, and creates nothing", async () => {
    const email = address("banned");
    const { data, error } = await client(server).signUp({ email, password });
    expect(data.user).toBeNull();
    expect(error).toMatchObject({ status: 500 });
    const answer = await server.fetch("/signup", { method: "POST", json: { email, password } });
    expect([answer.status, await answer.json()]).toEqual([
      500,
      expect.objectContaining({ error_code: "unexpected_failure", msg: "Addresses like this one may not sign up" }),
    ]);
    const { data: listed } = await (await adminApi(server)).listUsers({ perPage: 1000 });
    expect(listed.users.map((user) => user.email)).not.toContain(email);
    const profiles = await server.db.db.execute(sql.raw(`SELECT 1 FROM ${schema}.profiles WHERE email = '${email}'`));
    expect((profiles as unknown as { rows: unknown[] }).rows).toEqual([]);
  });

  it("runs the created-user function once the user is there, which keeps what it writes", async () => {
    const email = address("member");
    const { data, error } = await client(server).signUp({ email, password });
    expect(error).toBeNull();
    const profiles = await server.db.db.execute(
      sql.raw(`SELECT user_id::text AS user_id, email FROM ${schema}.profiles WHERE email = '${email}'`),
    );
    expect((profiles as unknown as { rows: unknown[] }).rows).toEqual([{ user_id: data.user!.id, email }]);
  });
});
