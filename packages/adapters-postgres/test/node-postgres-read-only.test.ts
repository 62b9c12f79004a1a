import { isAuthError } from "@latchkey/domain";
import { aUser, describeIfAvailable } from "@latchkey/domain/testing";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, expect, it, vi } from "vitest";
import { createPostgres, type Postgres } from "../src/index.ts";
import {
  type BlockableRole,
  createBlockableRole,
  dropTables,
  missingPostgresServer,
  randomNamespace,
  testDatabaseUrl,
} from "../src/testing/index.ts";
import { closedPort } from "./support.ts";

const url = testDatabaseUrl();

/** How `work` settled: "ok", or the error's code (an AuthError's) or name. */
async function outcomeOf(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
    return "ok";
  } catch (error) {
    return isAuthError(error) ? error.code : (error as Error).name;
  }
}

// What a failover that leaves the pool on the old primary looks like, for one role on the test server: its new
// sessions are read-only (default_transaction_read_only), and then they are not. PGlite has no such thing.
describeIfAvailable(missingPostgresServer(), "node-postgres on a database that turns read-only, then writable", () => {
  let admin: pg.Client;
  let role: BlockableRole;
  let postgres: Postgres;

  const run = async (statement: string) => void (await admin.query(statement));
  const readOnly = (on: boolean) =>
    run(
      on
        ? `alter role ${role.name} set default_transaction_read_only = on`
        : `alter role ${role.name} reset default_transaction_read_only`,
    );
  const endConnections = () =>
    run(`select pg_terminate_backend(pid) from pg_stat_activity where usename = '${role.name}'`);
  /** Two connections open in the pool at once, then idle. */
  const openTwo = () => Promise.all([0, 1].map(async () => postgres.db.execute(sql`select pg_sleep(0.05)`)));
  const insertUser = () => outcomeOf(() => postgres.stores.users.insert(aUser()));

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    role = await createBlockableRole(url!, { canCreateTables: true });
    postgres = await createPostgres({ url: role.url, namespace: randomNamespace(), maxPoolSize: 2 });
    await postgres.migrate();
  });
  beforeEach(async () => {
    await readOnly(false);
    await run(`alter role ${role.name} connection limit -1`);
    await endConnections();
    // Each as the pool hears of its end.
    await vi.waitFor(() => expect(postgres.poolCounts?.()).toMatchObject({ used: 0, idle: 0 }));
  });
  afterAll(async () => {
    await readOnly(false).catch(() => undefined);
    await dropTables(postgres).catch(() => undefined);
    await postgres.close();
    await role.drop();
    await admin.end();
  });

  it("gives up each connection a write was refused on, so that writes succeed again as soon as they can", async () => {
    await readOnly(true);
    await openTwo();
    expect(postgres.poolCounts?.()).toMatchObject({ used: 0, idle: 2 });

    // Refused, as a failover is answered: 503 service_unavailable. The connection goes, the other stays.
    expect(await insertUser()).toBe("service_unavailable");
    expect(postgres.poolCounts?.()).toMatchObject({ used: 0, idle: 1 });
    // Reads go on on what is left.
    expect(await postgres.stores.users.findByEmail("nobody@example.com")).toBeNull();

    await readOnly(false);
    // The connection left opened read-only and stays so: refused once more, then gone; the next is writable.
    expect([await insertUser(), await insertUser(), await insertUser()]).toEqual(["service_unavailable", "ok", "ok"]);
  });

  it("says whether the database takes writes, as a new connection finds it, though the pool's do not", async () => {
    await openTwo();
    await postgres.checkWritable(2_000);

    await readOnly(true);
    // The pool's connections opened writable, and are: only a new one sees the change.
    expect(await insertUser()).toBe("ok");
    await expect(postgres.checkWritable(2_000)).rejects.toMatchObject({ name: "DatabaseReadOnly" });

    await readOnly(false);
    await postgres.checkWritable(2_000);
  });

  it("answers on a connection of its own, at once, while the pool is busy", async () => {
    const busy = Promise.all([0, 1].map(async () => postgres.db.execute(sql`select pg_sleep(1)`)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(postgres.poolCounts?.()).toMatchObject({ used: 2 });
    const started = Date.now();
    await postgres.checkWritable(2_000);
    expect(Date.now() - started).toBeLessThan(500);
    await busy;
  });

  it("asks the pool when the server refuses a connection for being full: full is not down", async () => {
    await openTwo();
    // The role may hold no more connections than the pool has: a new one is refused (53300).
    await run(`alter role ${role.name} connection limit 2`);
    await postgres.checkWritable(2_000);
    await readOnly(true);
    // The pool's connections are writable: they opened before.
    await postgres.checkWritable(2_000);
  });

  it("rejects within its time when the database cannot be reached", async () => {
    const nowhere = await createPostgres({
      url: `postgres://nobody@127.0.0.1:${await closedPort()}/nothing`,
      namespace: randomNamespace(),
      maxPoolSize: 1,
    });
    try {
      const started = Date.now();
      await expect(nowhere.checkWritable(1_000)).rejects.toMatchObject({ code: "ECONNREFUSED" });
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await nowhere.close();
    }
  });
});
