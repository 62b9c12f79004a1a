import { randomUUID } from "node:crypto";
import { isAuthError } from "@latchkey/domain";
import { aUser, describeIfAvailable } from "@latchkey/domain/testing";
import { getTableName, sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeadlinePassed, type TimeBudgetOptions } from "../src/drivers/time-budget.ts";
import { createPostgres, type Postgres } from "../src/index.ts";
import {
  createBlockableRole,
  dropTables,
  missingPostgresServer,
  randomNamespace,
  testDatabaseUrl,
} from "../src/testing/index.ts";
import { closedPort } from "./support.ts";

const url = testDatabaseUrl();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How long `work` took to settle, and how. */
async function timed(work: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const started = Date.now();
  const error = await work().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  return { ms: Date.now() - started, error };
}

// Timeouts are PostgreSQL's own (statement_timeout, lock_timeout) and node-postgres's pool: PGlite has neither.
describeIfAvailable(missingPostgresServer(), "node-postgres under deadlines", () => {
  let locker: pg.Client;
  const opened: Postgres[] = [];

  async function open(timeouts: TimeBudgetOptions, maxPoolSize = 2, at = url!): Promise<Postgres> {
    const postgres = await createPostgres({ url: at, namespace: randomNamespace(), maxPoolSize, timeouts });
    opened.push(postgres);
    return postgres;
  }

  /** Holds an ACCESS EXCLUSIVE lock on the users table until `release`: every statement on it waits. */
  async function lockUsers(postgres: Postgres): Promise<{ release: () => Promise<void> }> {
    await locker.query("begin");
    await locker.query(`lock table "${getTableName(postgres.schema.users)}" in access exclusive mode`);
    return { release: async () => void (await locker.query("rollback")) };
  }

  beforeAll(async () => {
    locker = new pg.Client({ connectionString: url });
    await locker.connect();
  });
  afterAll(async () => {
    for (const postgres of opened) {
      await dropTables(postgres).catch(() => undefined);
      await postgres.close();
    }
    await locker.end();
  });

  it("ends a statement stuck behind a lock at the bound, as request_timeout, and reuses its connection", async () => {
    const postgres = await open({ timeoutMs: 500 }, 1);
    await postgres.migrate();
    const lock = await lockUsers(postgres);
    try {
      const stuck = await timed(() => postgres.stores.users.findByEmail("nobody@example.com"));
      expect(isAuthError(stuck.error, "request_timeout")).toBe(true);
      // lock_timeout (a tenth shorter) ended it: the cause says it was a lock.
      expect((stuck.error as Error).cause).toMatchObject({ code: "55P03" });
      expect(stuck.ms).toBeGreaterThanOrEqual(400);
      expect(stuck.ms).toBeLessThan(1_500);
      // The pool's one connection came back and serves what the lock does not block.
      await postgres.ping();
      expect(postgres.poolCounts?.()).toMatchObject({ used: 0, idle: 1, pending: 0 });
    } finally {
      await lock.release();
    }
    expect(await postgres.stores.users.findByEmail("nobody@example.com")).toBeNull();
  });

  it("gives a transaction what is left of its deadline, not the whole bound", async () => {
    const postgres = await open({ timeoutMs: 20_000 });
    await postgres.migrate();
    const lock = await lockUsers(postgres);
    try {
      const inTransaction = await timed(() =>
        postgres.within(Date.now() + 400).tx.run((stores) => stores.users.findByEmail("a@example.com")),
      );
      expect(isAuthError(inTransaction.error, "request_timeout")).toBe(true);
      expect(inTransaction.ms).toBeLessThan(1_500);

      // Outside a transaction, a statement started with much less than the bound left gets one of its own.
      const alone = await timed(() => postgres.within(Date.now() + 400).stores.users.findByEmail("a@example.com"));
      expect(isAuthError(alone.error, "request_timeout")).toBe(true);
      expect(alone.ms).toBeLessThan(1_500);

      // A store method of several statements runs them in a transaction on its connection, given what is left too.
      const second = await timed(() =>
        postgres.within(Date.now() + 400).stores.users.findById(randomUUID(), { forUpdate: true }),
      );
      expect(isAuthError(second.error, "request_timeout")).toBe(true);
      expect(second.ms).toBeLessThan(1_500);
    } finally {
      await lock.release();
    }
    // Work with no deadline of its own still has the whole bound, and the connections are back.
    expect(await postgres.stores.users.findByEmail("a@example.com")).toBeNull();
    expect(postgres.poolCounts?.()).toMatchObject({ used: 0, pending: 0 });
  });

  it("sends nothing once the deadline has passed, and rolls back a transaction that overran it", async () => {
    const postgres = await open({ timeoutMs: 20_000 });
    await postgres.migrate();
    const late = await timed(() => postgres.within(Date.now() - 1).stores.users.findByEmail("a@example.com"));
    expect(isAuthError(late.error, "request_timeout")).toBe(true);
    expect((late.error as Error).cause).toBeInstanceOf(DeadlinePassed);
    expect(late.ms).toBeLessThan(100);

    const user = aUser();
    const overran = await timed(() =>
      postgres.within(Date.now() + 300).tx.run(async (stores) => {
        await stores.users.insert(user);
        await sleep(400);
        await stores.users.findById(user.id);
      }),
    );
    expect(isAuthError(overran.error, "request_timeout")).toBe(true);
    expect(await postgres.stores.users.findById(user.id)).toBeNull();

    // A store method of several statements (a user with its identity, in a transaction of its own) that starts too
    // late writes nothing either.
    const tooLate = await timed(() => postgres.within(Date.now() - 1).stores.users.insert(user));
    expect(isAuthError(tooLate.error, "request_timeout")).toBe(true);
    expect(await postgres.stores.users.findById(user.id)).toBeNull();
  });

  it("answers service_unavailable at once, with a Retry-After, when the server refuses connections", async () => {
    const at = new URL(url!);
    at.hostname = "127.0.0.1";
    at.port = String(await closedPort());
    const postgres = await open({ timeoutMs: 5_000 }, 2, at.toString());
    for (const attempt of [
      () => postgres.stores.users.findByEmail("a@example.com"),
      () => postgres.tx.run((stores) => stores.users.findByEmail("a@example.com")),
    ]) {
      const refused = await timed(attempt);
      expect(refused.error).toMatchObject({ code: "service_unavailable", retryAfterSeconds: 5 });
      expect((refused.error as Error).cause).toMatchObject({ code: "ECONNREFUSED" });
      expect(refused.ms).toBeLessThan(1_000);
    }
  });

  it("answers service_unavailable when the server ends the connection under a statement", async () => {
    const postgres = await open({ timeoutMs: 5_000 }, 1);
    await postgres.migrate();
    const lock = await lockUsers(postgres);
    try {
      const stuck = timed(() => postgres.tx.run((stores) => stores.users.findByEmail("a@example.com")));
      // Its backend waits on the lock; an operator (or a failover) terminates it.
      let terminated = 0;
      while (terminated === 0) {
        await sleep(20);
        const result = await locker.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
           where wait_event_type = 'Lock' and query ilike $1 and pid <> pg_backend_pid()`,
          [`%${getTableName(postgres.schema.users)}%`],
        );
        terminated = result.rowCount ?? 0;
      }
      const { error } = await stuck;
      expect(error).toMatchObject({ code: "service_unavailable", retryAfterSeconds: 5 });
    } finally {
      await lock.release();
    }
    // The broken connection was dropped; the next statement gets a new one.
    expect(await postgres.stores.users.findByEmail("a@example.com")).toBeNull();
  });

  describe("a server full for this role (CONNECTION LIMIT 2)", () => {
    let admin: pg.Client;
    let role: Awaited<ReturnType<typeof createBlockableRole>>;
    let seen = 0;

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: url });
      await admin.connect();
      role = await createBlockableRole(url!);
      await admin.query(`alter role ${role.name} connection limit 2`);
    });
    afterAll(async () => {
      await role?.drop();
      await admin?.end();
    });

    /** The most connections the role has had open at once while `work` ran. */
    async function peakWhile(work: () => Promise<unknown>): Promise<unknown> {
      let running = true;
      const watching = (async () => {
        while (running) {
          const { rows } = await admin.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where usename = $1",
            [role.name],
          );
          seen = Math.max(seen, rows[0]!.n);
          await sleep(10);
        }
      })();
      try {
        return await work();
      } finally {
        running = false;
        await watching;
      }
    }

    it("waits for one of the pool's connections instead of failing, with no pool limit of its own", async () => {
      const postgres = await open({ timeoutMs: 10_000 }, 0, role.url);
      const started = Date.now();
      const results = await peakWhile(() =>
        Promise.allSettled(Array.from({ length: 8 }, async () => postgres.db.execute(sql`select pg_sleep(0.2)`))),
      );
      expect((results as PromiseSettledResult<unknown>[]).map((result) => result.status)).toEqual(
        Array(8).fill("fulfilled"),
      );
      expect(seen).toBeLessThanOrEqual(2);
      // Two at a time: four rounds of 0.2 s.
      expect(Date.now() - started).toBeGreaterThanOrEqual(750);
      expect(postgres.poolCounts?.().pending).toBe(0);
    });

    it("gives up at the deadline, as request_timeout, when no connection comes back in time", async () => {
      // The pools of the tests before may hold the role's connections idle.
      for (const earlier of opened) await earlier.close();
      const postgres = await open({ timeoutMs: 10_000 }, 0, role.url);
      // The server's two connections busy for 0.8 s with work of no deadline. (No table is needed: nothing of the
      // work with a deadline is sent.)
      const busy = Promise.all([1, 2].map(() => postgres.db.execute(sql`select pg_sleep(0.8)`)));
      await sleep(100);
      const deadlineAt = Date.now() + 300;
      const results = await Promise.allSettled(
        Array.from({ length: 4 }, () => postgres.within(deadlineAt).stores.users.findByEmail("a@example.com")),
      );
      await busy;
      const failures = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
      expect(failures).toHaveLength(4);
      for (const failure of failures) {
        expect(isAuthError(failure, "request_timeout")).toBe(true);
        expect((failure as Error).cause).toBeInstanceOf(DeadlinePassed);
      }
    });
  });
});
