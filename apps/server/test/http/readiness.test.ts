import { type AddressInfo, createServer } from "node:net";
import {
  connectDirectly,
  createBlockableRole,
  missingPostgresServer,
  testDatabaseUrl,
} from "@latchkey/adapters-postgres/testing";
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

/** A port that takes connections and closes each at once, held until the test ends. */
async function hangingUpPort(): Promise<number> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

describe("GET /ready", () => {
  it("answers 200 naming the database and the SMTP server when they answer (no Redis configured, none checked)", async () => {
    const server = await startTestServer();
    cleanups.push(server.close);
    expect(await ready(server)).toEqual({ status: 200, body: { database: "ok", smtp: "ok" } });
    // Checked at start, and said in one line.
    const smtpLines = server.logLines().filter((line) => String(line["msg"]).startsWith("mail: the SMTP server"));
    expect(smtpLines).toEqual([
      expect.objectContaining({
        level: 30,
        smtp: `127.0.0.1:${server.mail.port}`,
        msg: "mail: the SMTP server accepts connections; mail can be delivered",
      }),
    ]);
  });

  it("reports an SMTP server that cannot be used without failing, unless API_READINESS_DEPENDENCIES names it", async () => {
    // A port held for the test, whose connections are hung up on at once: an SMTP server that cannot be used. (A
    // closed port could be taken meanwhile by another test file's mail sink.)
    const port = await hangingUpPort();
    const server = await startTestServer({ AUTH_SMTP_PORT: String(port) });
    cleanups.push(server.close);
    expect(await ready(server)).toEqual({ status: 200, body: { database: "ok", smtp: "unavailable" } });
    // One line at start, saying why, before any mail is sent.
    const smtpLines = server.logLines().filter((line) => String(line["msg"]).startsWith("mail: the SMTP server"));
    expect(smtpLines).toHaveLength(1);
    expect(smtpLines[0]).toMatchObject({ level: 40, smtp: `127.0.0.1:${port}`, code: expect.any(String) });
    expect(smtpLines[0]?.["error"]).toEqual(expect.any(String));

    const counted = await startTestServer({ AUTH_SMTP_PORT: String(port), AUTH_API_READINESS_DEPENDENCIES: "smtp" });
    cleanups.push(counted.close);
    expect(await ready(counted)).toEqual({ status: 503, body: { database: "ok", smtp: "unavailable" } });
  });

  it("turns 503 naming the database while new connections to it are read-only, and 200 once they are not", async (context) => {
    const missing = missingPostgresServer();
    context.skip(missing !== undefined, missing);
    const role = await createBlockableRole(databaseUrl!, { canCreateTables: true });
    cleanups.push(role.drop);
    const server = await startTestServer({ DATABASE_URL: role.url });
    cleanups.push(server.close);
    expect(await ready(server)).toEqual({ status: 200, body: { database: "ok", smtp: "ok" } });

    const admin = await connectDirectly(databaseUrl!);
    cleanups.push(() => admin.end());
    await admin.query(`alter role ${role.name} set default_transaction_read_only = on`);
    expect(await ready(server)).toEqual({ status: 503, body: { database: "unavailable", smtp: "ok" } });
    await admin.query(`alter role ${role.name} reset default_transaction_read_only`);
    expect(await ready(server)).toEqual({ status: 200, body: { database: "ok", smtp: "ok" } });
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
    expect(await ready(server)).toEqual({ status: 200, body: { database: "ok", smtp: "ok" } });

    await role.block();
    const asked = Date.now();
    expect(await ready(server)).toEqual({ status: 503, body: { database: "unavailable", smtp: "ok" } });
    expect(Date.now() - asked).toBeLessThan(2_500);
    // Liveness is not readiness.
    expect((await server.fetch("/health")).status).toBe(200);
    // Several refused reconnections.
    await sleep(5_000);
    expect(await ready(server)).toEqual({ status: 503, body: { database: "unavailable", smtp: "ok" } });
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
