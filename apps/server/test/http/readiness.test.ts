import { createBlockableRole, missingPostgresServer, testDatabaseUrl } from "@latchkey/adapters-postgres/testing";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/start-test-server.ts";

const databaseUrl = testDatabaseUrl();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  // Every one, even after a failure: a role left behind keeps its tables.
  const failures: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
});

async function ready(server: TestServer) {
  const answer = await server.fetch("/ready");
  return { status: answer.status, body: await answer.json() };
}

describe("GET /ready", () => {
  it("answers 200 naming the database when it answers (no Redis configured, none checked)", async () => {
    const server = await startTestServer();
    cleanups.push(server.close);
    expect(await ready(server)).toEqual({ status: 200, body: { database: "ok" } });
  });

  it("turns 503 naming the database while it cannot be reached, and the LISTEN connection's outage is logged once each way", async (context) => {
    const missing = missingPostgresServer();
    context.skip(missing !== undefined, missing);
    const role = await createBlockableRole(databaseUrl!, { canCreateTables: true });
    cleanups.push(role.drop);
    const server = await startTestServer({ DATABASE_URL: role.url });
    cleanups.push(server.close);
    const listenLines = () =>
      server.logLines().filter((line) => String(line["msg"]).startsWith("outbox: the database connection"));
    expect(await ready(server)).toEqual({ status: 200, body: { database: "ok" } });

    await role.block();
    const asked = Date.now();
    expect(await ready(server)).toEqual({ status: 503, body: { database: "unavailable" } });
    expect(Date.now() - asked).toBeLessThan(2_500);
    // Liveness is not readiness.
    expect((await server.fetch("/health")).status).toBe(200);
    // Several refused reconnections.
    await sleep(5_000);
    expect(await ready(server)).toEqual({ status: 503, body: { database: "unavailable" } });
    expect(listenLines()).toHaveLength(1);
    expect(listenLines()[0]).toMatchObject({ level: 40, database: new URL(role.url).host });
    expect(listenLines()[0]).not.toHaveProperty("err");

    await role.unblock();
    await expect.poll(async () => (await ready(server)).status, { timeout: 5_000 }).toBe(200);
    await expect.poll(() => listenLines().length, { timeout: 5_000 }).toBe(2);
    expect(listenLines()[1]).toMatchObject({ level: 30, database: new URL(role.url).host });
    expect(listenLines()[1]?.["down_ms"]).toBeGreaterThan(5_000);
    expect(server.logText()).not.toContain(new URL(role.url).password);
  }, 30_000);
});
