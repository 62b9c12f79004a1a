import {
  type BlockableRole,
  connectDirectly,
  createBlockableRole,
  type DirectConnection,
  missingPostgresServer,
  testDatabaseUrl,
} from "@latchkey/adapters-postgres/testing";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startTestServer, type TestServer } from "../support/start-test-server.ts";

const url = testDatabaseUrl();
const password = "a-password-nobody-guesses";
const SESSIONS = 24;

// The server connects as a role of the test's own, limited to 3 connections (ALTER ROLE … CONNECTION LIMIT): to
// the server, PostgreSQL is full once it has 3, one of which is its LISTEN connection. The pool sets no limit of
// its own (DB_MAX_POOL_SIZE=0, the default).
describeIfAvailable(missingPostgresServer(), "a database that refuses connections for being full", () => {
  let role: BlockableRole;
  let operator: DirectConnection;
  let server: TestServer;
  const refreshTokens: string[] = [];

  /**
   * Ends every connection of the role and waits until PostgreSQL has none of them left: whatever the server opens
   * from then on (a request, or its outbox worker at any moment) takes the role's settings as they are now.
   */
  const reconnectAll = async () => {
    const [ended] = await operator.query<{ at: Date }>("select clock_timestamp() as at");
    await operator.query("select pg_terminate_backend(pid) from pg_stat_activity where usename = $1", [role.name]);
    await vi.waitFor(async () => {
      const left = await operator.query("select pid from pg_stat_activity where usename = $1 and backend_start <= $2", [
        role.name,
        ended!.at,
      ]);
      expect(left).toEqual([]);
    });
  };

  beforeAll(async () => {
    operator = await connectDirectly(url!);
    role = await createBlockableRole(url!, { canCreateTables: true });
    await operator.query(`alter role ${role.name} connection limit 3`);
    server = await startTestServer({
      DATABASE_URL: role.url,
      AUTH_DB_MAX_POOL_SIZE: "0",
      AUTH_API_MAX_REQUEST_DURATION: "15",
      AUTH_MAILER_AUTOCONFIRM: "true",
    });
    for (let i = 0; i < SESSIONS; i++) {
      const signedUp = await server.fetch("/signup", {
        method: "POST",
        json: { email: `burst-${i}@example.com`, password },
      });
      refreshTokens.push(((await signedUp.json()) as { refresh_token: string }).refresh_token);
    }
  });
  afterAll(async () => {
    await server?.close();
    await role?.drop();
    await operator?.end();
  });

  it("makes a burst of refreshes wait for a connection and succeed, rather than fail", async () => {
    const answers = await Promise.all(
      refreshTokens.map((refreshToken) =>
        server.fetch("/token?grant_type=refresh_token", { method: "POST", json: { refresh_token: refreshToken } }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(SESSIONS).fill(200));
    await vi.waitFor(() => expect(server.db.poolCounts?.()).toMatchObject({ used: 0, pending: 0 }));
    expect(server.logLines().filter((line) => Number(line["level"]) >= 50)).toEqual([]);
  });

  it("answers 503 service_unavailable while the database is read-only (a failover under way)", async () => {
    await operator.query(`alter role ${role.name} set default_transaction_read_only = on`);
    // Connections take the setting when they open: make the pool open new ones.
    await reconnectAll();
    try {
      const signUp = () =>
        server.fetch("/signup", { method: "POST", json: { email: "read-only@example.com", password } });
      // The first request may still meet a connection that was ended under it (also a 503).
      let response = await signUp();
      if (response.status === 503) response = await signUp();
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(await response.json()).toMatchObject({ code: 503, error_code: "service_unavailable" });
      expect(
        server
          .logLines()
          .some((line) => line["code"] === "service_unavailable" && /read-only/.test(`${line["reason"]}`)),
      ).toBe(true);
    } finally {
      await operator.query(`alter role ${role.name} reset default_transaction_read_only`);
      await reconnectAll();
    }
  });
});
