import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimsOf, client } from "./support.ts";

// DB_CLEANUP_ENABLED end to end: rows are aged in the database (the retention times are a day and more), then the
// server's own clean-up, every 200 ms here, must take exactly the stale ones, and every live session go on.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    AUTH_MAILER_AUTOCONFIRM: "true",
    AUTH_EXTERNAL_ANONYMOUS_USERS_ENABLED: "true",
    AUTH_SESSIONS_INACTIVITY_TIMEOUT: "1h",
    AUTH_DB_CLEANUP_ENABLED: "true",
    AUTH_DB_CLEANUP_INTERVAL: "200ms",
  });
});
afterAll(async () => {
  await server?.close();
});

const table = (name: string) => sql.raw(`"${server.config.db.namespace}${name}"`);
const run = (statement: ReturnType<typeof sql>) => server.db.db.execute(statement);
async function count(statement: ReturnType<typeof sql>): Promise<number> {
  const result = (await run(statement)) as unknown as { rows: { n: string | number }[] };
  return Number(result.rows[0]!.n);
}

async function signedUp() {
  const app = client(server);
  const email = `cleanup-${crypto.randomUUID()}@example.com`;
  const { data, error } = await app.signUp({ email, password: "pass-word-1" });
  expect(error).toBeNull();
  return { app, email, sessionId: claimsOf(data.session!.access_token)["session_id"] as string };
}

const tokensOf = (sessionId: string) =>
  count(sql`select count(*) as n from ${table("refresh_tokens")} where session_id = ${sessionId}`);
const sessionExists = async (sessionId: string) =>
  (await count(sql`select count(*) as n from ${table("sessions")} where id = ${sessionId}`)) === 1;
const userExists = async (userId: string) =>
  (await count(sql`select count(*) as n from ${table("users")} where id = ${userId}`)) === 1;

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`the clean-up did not get to it: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the clean-up", () => {
  it("deletes stale rows, and nothing a live session or a recent anonymous user needs", async () => {
    // A session refreshed three times, whose every token is then two days old: the three rotated away go, the
    // current one stays (its session was refreshed just now, as far as the session row says).
    const refreshed = await signedUp();
    for (let i = 0; i < 3; i++) expect((await refreshed.app.refreshSession()).error).toBeNull();
    expect(await tokensOf(refreshed.sessionId)).toBe(4);
    await run(sql`update ${table("refresh_tokens")} set created_at = created_at - interval '2 days'
      where session_id = ${refreshed.sessionId}`);

    // A second session of the same user, fresh, and one of another user unrefreshed for two days (past
    // SESSIONS_INACTIVITY_TIMEOUT, and a day more).
    const other = client(server);
    expect((await other.signInWithPassword({ email: refreshed.email, password: "pass-word-1" })).error).toBeNull();
    const idle = await signedUp();
    await run(sql`update ${table("sessions")} set created_at = created_at - interval '2 days'
      where id = ${idle.sessionId}`);
    await run(sql`update ${table("refresh_tokens")} set created_at = created_at - interval '2 days'
      where session_id = ${idle.sessionId}`);

    // Anonymous users: one 31 days old, one new.
    const oldAnonymous = client(server);
    const newAnonymous = client(server);
    const old = await oldAnonymous.signInAnonymously();
    const recent = await newAnonymous.signInAnonymously();
    await run(sql`update ${table("users")} set created_at = created_at - interval '31 days'
      where id = ${old.data.user!.id}`);

    await eventually(async () => (await tokensOf(refreshed.sessionId)) === 1, "rotated refresh tokens");
    await eventually(async () => !(await sessionExists(idle.sessionId)), "the inactive session");
    await eventually(async () => !(await userExists(old.data.user!.id)), "the old anonymous user");

    // Everything live goes on.
    expect((await refreshed.app.refreshSession()).error).toBeNull();
    expect((await other.refreshSession()).error).toBeNull();
    expect((await newAnonymous.refreshSession()).error).toBeNull();
    expect(await userExists(recent.data.user!.id)).toBe(true);
    // The inactive session's refresh token is unknown now.
    expect((await idle.app.refreshSession()).error).toMatchObject({ status: 400, code: "refresh_token_not_found" });
  });
});
