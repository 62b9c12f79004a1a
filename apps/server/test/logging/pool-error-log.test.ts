import {
  connectDirectly,
  createBlockableRole,
  missingPostgresServer,
  testDatabaseUrl,
} from "@latchkey/adapters-postgres/testing";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it, vi } from "vitest";
import { startTestServer } from "../support/start-test-server.ts";

describeIfAvailable(missingPostgresServer(), "an idle pooled connection ended by PostgreSQL", () => {
  it("is logged by its message and SQLSTATE alone: nothing of the connection, its cancel key least of all", async () => {
    const role = await createBlockableRole(testDatabaseUrl()!, { canCreateTables: true });
    const operator = await connectDirectly(testDatabaseUrl()!);
    const server = await startTestServer({ DATABASE_URL: role.url });
    try {
      // A pooled connection, idle once the request (a sign-in nobody can pass) is answered.
      const signIn = { email: "nobody@example.com", password: "not the password" };
      expect((await server.fetch("/token?grant_type=password", { method: "POST", json: signIn })).status).toBe(400);
      const ended = await operator.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where usename = $1 and query not ilike '%LISTEN%'",
        [role.name],
      );
      const failures = () =>
        server.logLines().filter((line) => line["msg"] === "an idle database connection failed; it will be replaced");
      const failed = () => failures()[0];
      // Every connection ended has been heard of (and dropped by the pool) before the server closes on the rest.
      await vi.waitFor(() => expect(failures().length).toBeGreaterThanOrEqual(Math.max(1, ended.length)));
      expect(failed()).toMatchObject({ level: 40, code: "57P01" });
      expect(String(failed()!["error"])).toContain("terminat");
      expect(Object.keys(failed()!).sort()).toEqual(["code", "error", "level", "msg", "service", "time"]);
      expect(server.logText()).not.toMatch(/secretKey|processID|_prepared/i);
    } finally {
      await server.close();
      await role.drop();
      await operator.end();
    }
  });
});
