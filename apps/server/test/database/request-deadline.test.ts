import {
  connectDirectly,
  type DirectConnection,
  missingPostgresServer,
  testDatabaseUrl,
} from "@latchkey/adapters-postgres/testing";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { getTableName } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startTestServer, type TestServer } from "../support/start-test-server.ts";

const url = testDatabaseUrl();
const password = "a-password-nobody-guesses";

/** What a request got, and how long it took. */
async function timedFetch(server: TestServer, path: string, init: Parameters<TestServer["fetch"]>[1] = {}) {
  const started = performance.now();
  const response = await server.fetch(path, init);
  const body = (await response.json()) as Record<string, unknown>;
  return { response, body, ms: performance.now() - started };
}

// statement_timeout and lock_timeout are PostgreSQL's; PGlite has no such limits (docs/compatibility.md).
describeIfAvailable(missingPostgresServer(), "every request ends by API_MAX_REQUEST_DURATION (1s here)", () => {
  let server: TestServer;
  let locker: DirectConnection;
  let accessToken: string;

  beforeAll(async () => {
    server = await startTestServer({ AUTH_API_MAX_REQUEST_DURATION: "1", AUTH_MAILER_AUTOCONFIRM: "true" });
    locker = await connectDirectly(url!);
    const signedUp = await server.fetch("/signup", { method: "POST", json: { email: "held@example.com", password } });
    accessToken = ((await signedUp.json()) as { access_token: string }).access_token;
  });
  afterAll(async () => {
    await locker?.end();
    await server?.close();
  });

  it("answers 504 request_timeout at the deadline when a lock holds the users table, and frees its connections", async () => {
    await locker.query("begin");
    await locker.query(`lock table "${getTableName(server.db.schema.users)}" in access exclusive mode`);
    try {
      // More requests than the pool has connections (8): those that wait for one end at their deadline too.
      const answers = await Promise.all([
        ...Array.from({ length: 6 }, () =>
          timedFetch(server, "/token?grant_type=password", {
            method: "POST",
            json: { email: "held@example.com", password },
          }),
        ),
        ...Array.from({ length: 6 }, () =>
          timedFetch(server, "/user", { headers: { authorization: `Bearer ${accessToken}` } }),
        ),
      ]);
      for (const { response, body, ms } of answers) {
        expect(response.status).toBe(504);
        expect(response.headers.get("x-sb-error-code")).toBe("request_timeout");
        expect(body).toMatchObject({
          code: 504,
          error_code: "request_timeout",
          msg: "Processing this request timed out, please retry after a moment.",
        });
        expect(body["error_id"]).toEqual(expect.any(String));
        expect(ms).toBeGreaterThan(800);
        expect(ms).toBeLessThan(2_500);
      }
      // Meanwhile what does not touch the table is served.
      expect((await server.fetch("/settings")).status).toBe(200);
      // Every connection is back in the pool, none held by a request that gave up.
      await vi.waitFor(() => expect(server.db.poolCounts?.()).toMatchObject({ used: 0, pending: 0 }));
    } finally {
      await locker.query("rollback");
    }
    const signedIn = await server.fetch("/token?grant_type=password", {
      method: "POST",
      json: { email: "held@example.com", password },
    });
    expect(signedIn.status).toBe(200);
  });

  it("logs a request that ran out of time as one warning with the reason, not as a bug", async () => {
    const lines = server.logLines().filter((line) => line["code"] === "request_timeout");
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line["level"]).toBe(40);
      expect(line["reason"]).toMatch(/lock timeout|statement timeout|deadline/);
      expect(line["err"]).toBeUndefined();
    }
  });
});
