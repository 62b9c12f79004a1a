import { randomBytes } from "node:crypto";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { createPostgres, type Postgres, type PostgresOptions } from "../src/index.ts";
import { dropTables, missingPostgresServer, randomNamespace, testDatabaseUrl } from "../src/testing/index.ts";
import { gate } from "./support.ts";

const url = testDatabaseUrl();

// The pool is node-postgres's; PGlite has none.
describeIfAvailable(missingPostgresServer(), "node-postgres pool", () => {
  let observer: pg.Client;
  const opened: Postgres[] = [];

  /** A pool whose connections carry their own application_name, so the observer can count and kill them. */
  async function open(
    options: Omit<PostgresOptions, "url" | "namespace">,
  ): Promise<{ postgres: Postgres; name: string }> {
    const name = `latchkey-test-${randomBytes(4).toString("hex")}`;
    const withName = new URL(url!);
    withName.searchParams.set("application_name", name);
    const postgres = await createPostgres({ ...options, url: withName.toString(), namespace: randomNamespace() });
    opened.push(postgres);
    return { postgres, name };
  }

  const connections = async (name: string) =>
    (
      await observer.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where application_name = $1",
        [name],
      )
    ).rows[0]!.n;

  beforeAll(async () => {
    observer = new pg.Client({ connectionString: url });
    await observer.connect();
  });
  afterAll(async () => {
    for (const postgres of opened) {
      await dropTables(postgres).catch(() => undefined);
      await postgres.close();
    }
    await observer.end();
  });

  it("opens at most maxPoolSize connections; a query beyond them waits for one", async () => {
    const { postgres, name } = await open({ maxPoolSize: 2 });
    const finished: number[] = [];
    const started = Date.now();
    const queries = [0, 1, 2].map(async (i) => {
      await postgres.db.execute(sql`select pg_sleep(0.4)`);
      finished.push(i);
    });
    await vi.waitFor(async () => expect(await connections(name)).toBe(2));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await connections(name)).toBe(2);
    await Promise.all(queries);
    expect(finished).toHaveLength(3);
    // The third slept only after one of the first two gave its connection back.
    expect(Date.now() - started).toBeGreaterThanOrEqual(780);
  });

  it("has no limit with maxPoolSize 0 (where pg-pool alone would cap at 10)", async () => {
    const { postgres, name } = await open({ maxPoolSize: 0 });
    // drizzle builds queries lazily: an async function starts each one now.
    const queries = Array.from({ length: 12 }, async () => postgres.db.execute(sql`select pg_sleep(0.4)`));
    await vi.waitFor(async () => expect(await connections(name)).toBe(12));
    await Promise.all(queries);
  });

  it("refuses a pool size that is not a whole number", async () => {
    await expect(open({ maxPoolSize: -1 })).rejects.toThrow(/maxPoolSize/);
    await expect(open({ maxPoolSize: 1.5 })).rejects.toThrow(/maxPoolSize/);
  });

  it("survives an idle connection dying: reports it and reconnects", async () => {
    const errors: Error[] = [];
    const { postgres, name } = await open({ maxPoolSize: 1, onPoolError: (error) => errors.push(error) });
    await postgres.ping();
    await observer.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1", [name]);
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    await postgres.ping();
  });

  it("survives a connection dying inside a transaction: the transaction fails, the pool goes on", async () => {
    const { postgres, name } = await open({ maxPoolSize: 1 });
    await postgres.migrate();
    const inside = gate();
    const release = gate();
    const run = postgres.tx.run(async (stores) => {
      await stores.users.findByEmail("nobody@example.com");
      inside.open();
      await release.opened;
      return stores.users.findByEmail("nobody@example.com");
    });
    const outcome = run.then(
      () => "committed",
      () => "failed",
    );
    await inside.opened;
    // Killed between two statements: the client is checked out, so no pool listener hears its 'error'.
    await observer.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1", [name]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    release.open();
    expect(await outcome).toBe("failed");
    expect(await postgres.stores.users.findByEmail("nobody@example.com")).toBeNull();
  });
});
