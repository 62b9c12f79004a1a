import {
  connectDirectly,
  type DirectConnection,
  missingPostgresServer,
  testDatabaseUrl,
} from "@latchkey/adapters-postgres/testing";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { getTableName } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/start-test-server.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";

const url = testDatabaseUrl();
const password = "a-password-nobody-guesses";
const signIn = { method: "POST", json: { email: "outage@example.com", password } } as const;

/** What a client gets while the database is away: GoTrue's error shape, a code that says so, and when to retry. */
async function expectUnavailable(response: Response, started: number) {
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toBe("5");
  expect(response.headers.get("x-sb-error-code")).toBe("service_unavailable");
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({
    code: 503,
    error_code: "service_unavailable",
    msg: "The service is unavailable, please retry after a moment.",
  });
  expect(body["error_id"]).toEqual(expect.any(String));
  expect(performance.now() - started).toBeLessThan(1_000);
}

// The server reaches PostgreSQL through a proxy the test cuts: the database host goes away, then comes back.
describeIfAvailable(missingPostgresServer(), "a database that cannot be reached", () => {
  let proxy: TcpProxy;
  let server: TestServer;
  let operator: DirectConnection;
  let accessToken: string;

  beforeAll(async () => {
    const target = new URL(url!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const through = new URL(url!);
    through.hostname = "127.0.0.1";
    through.port = String(proxy.port);
    server = await startTestServer({ DATABASE_URL: through.toString(), AUTH_MAILER_AUTOCONFIRM: "true" });
    operator = await connectDirectly(url!);
    const signedUp = await server.fetch("/signup", signIn);
    accessToken = ((await signedUp.json()) as { access_token: string }).access_token;
  });
  afterAll(async () => {
    await proxy?.restore();
    await operator?.end();
    await server?.close();
    await proxy?.close();
  });

  it("answers 503 service_unavailable with Retry-After while connections are refused, and serves again once it is back", async () => {
    await proxy.cut();
    try {
      for (const [path, init] of [
        ["/token?grant_type=password", signIn],
        ["/signup", { method: "POST", json: { email: "new@example.com", password } }],
        ["/user", { headers: { authorization: `Bearer ${accessToken}` } }],
      ] as const) {
        const started = performance.now();
        await expectUnavailable(await server.fetch(path, init), started);
      }
      // The 2024-01-01 shape, for auth-js.
      const versioned = await server.fetch("/token?grant_type=password", {
        ...signIn,
        headers: { "x-supabase-api-version": "2024-01-01" },
      });
      expect(versioned.status).toBe(503);
      expect(versioned.headers.get("retry-after")).toBe("5");
      expect(await versioned.json()).toMatchObject({ code: "service_unavailable" });
    } finally {
      await proxy.restore();
    }
    // No restart: the next request connects again.
    expect((await server.fetch("/token?grant_type=password", signIn)).status).toBe(200);
  });

  it("answers 503 to a request whose connection is lost under it", async () => {
    await operator.query("begin");
    await operator.query(`lock table "${getTableName(server.db.schema.users)}" in access exclusive mode`);
    try {
      const started = performance.now();
      const waiting = server.fetch("/token?grant_type=password", signIn);
      // Its statement waits on the lock when the host goes away.
      for (let waited = 0; waited < 50; waited++) {
        const rows = await operator.query(
          "select 1 from pg_stat_activity where wait_event_type = 'Lock' and pid <> pg_backend_pid()",
        );
        if (rows.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await proxy.cut();
      await expectUnavailable(await waiting, started);
    } finally {
      await proxy.restore();
      await operator.query("rollback");
    }
    expect((await server.fetch("/token?grant_type=password", signIn)).status).toBe(200);
  });

  it("logs each refusal as one warning with the reason, not as a bug with a stack", () => {
    const lines = server.logLines().filter((line) => line["code"] === "service_unavailable");
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) {
      expect(line["level"]).toBe(40);
      expect(line["reason"]).toMatch(/ECONNREFUSED|Connection terminated|ECONNRESET/);
    }
    expect(server.logLines().filter((line) => line["msg"] === "request failed")).toEqual([]);
  });
});
