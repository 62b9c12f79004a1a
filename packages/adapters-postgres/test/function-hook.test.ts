import { randomBytes } from "node:crypto";
import { AuthError, isAuthError, type Stores } from "@latchkey/domain";
import { aUser, describeHookCallerContract, describeIfAvailable, type HookBehaviour } from "@latchkey/domain/testing";
import { getTableName, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFunctionHook, createPostgres, type Database, type Postgres } from "../src/index.ts";
import { translatingErrors } from "../src/stores/database-error.ts";
import { createHookFunctionStore } from "../src/stores/hook-function-store.ts";
import { missingPostgresServer, randomNamespace, testDatabaseUrl } from "../src/testing/index.ts";
import { backends, openedFor, queryRows } from "./support.ts";

// Hooks that are functions in the database (pg-functions://), called as GoTrue calls them, on each backend: the
// hook caller contract, then what only a function hook does (SQLSTATEs, transactions, timeouts).

const NO_STATEMENT_TIMEOUT = "PGlite does not enforce statement_timeout: a slow function is never cancelled";
/** The hook's own limit in these tests: GoTrue's is 2 s. */
const HOOK_TIMEOUT_MS = 200;
/** Long past HOOK_TIMEOUT_MS, short enough that a timeout that failed to fire does not hang the run. */
const SLOW_SECONDS = 3;

const PAYLOAD = { user_id: "3f0c1d5e-6a7b-4c8d-9e0f-1a2b3c4d5e6f", claims: { role: "authenticated" } };

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** A schema of the suite's own, in which each test defines functions of its own, recording what they are sent. */
function hookSchemaFor(postgres: () => Postgres, missing: string | undefined) {
  const schema = `hooks_${randomBytes(5).toString("hex")}`;
  let defined = 0;
  const run = (statement: string) => postgres().db.execute(sql.raw(statement));
  beforeAll(async () => {
    if (missing !== undefined) return;
    await run(`create schema ${schema}`);
    await run(`create table ${schema}.received (id serial primary key, fn text not null, payload jsonb not null)`);
  });
  afterAll(async () => {
    if (missing === undefined) await run(`drop schema if exists ${schema} cascade`);
  });
  return {
    schema,
    uri: (name: string) => `pg-functions://postgres/${schema}/${name}`,
    /** The statement that records the payload, for a body to run first. */
    record: (name: string) => `insert into ${schema}.received (fn, payload) values (${literal(name)}, payload);`,
    /** Defines `<schema>.<name>(payload jsonb) returns <returns>` running `statements` (PL/pgSQL); returns its name. */
    async define(statements: (name: string) => string, returns = "jsonb"): Promise<string> {
      defined += 1;
      const name = `hook_${defined}`;
      await run(
        `create function ${schema}.${name}(payload jsonb) returns ${returns} language plpgsql as $fn$ begin ${statements(name)} end $fn$`,
      );
      return name;
    },
    /** What the function `name` was sent, in order, and still holds (a rollback takes it back). */
    async received(name: string): Promise<unknown[]> {
      const rows = await queryRows<{ payload: string }>(
        postgres().db,
        sql.raw(`select payload::text as payload from ${schema}.received where fn = ${literal(name)} order by id`),
      );
      return rows.map((row) => JSON.parse(row.payload));
    },
  };
}

type HookSchema = ReturnType<typeof hookSchemaFor>;

/** The body of a function behaving as the contract asks: every one records its payload first. */
function bodyOf(behaviour: HookBehaviour, hooks: HookSchema): (name: string) => string {
  switch (behaviour.kind) {
    case "answer":
      return (name) => `${hooks.record(name)} return ${literal(JSON.stringify(behaviour.body))}::jsonb;`;
    case "nothing":
      return (name) => `${hooks.record(name)} return null;`;
    case "slow":
      return (name) => `${hooks.record(name)} perform pg_sleep(${SLOW_SECONDS}); return '{}'::jsonb;`;
    case "fail":
      return (name) => `${hooks.record(name)} raise exception 'boom';`;
  }
}

/** What `work` rejected with; fails the test when it resolved. */
async function failureOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => expect.fail("the call succeeded"),
    (error: unknown) => error,
  );
}

/** The stores of a transaction the test holds itself (to set what it likes in it), for hook functions. */
function storesIn(postgres: Postgres, txDb: Database): Stores {
  return { ...postgres.stores, hookFunctions: translatingErrors(createHookFunctionStore((work) => work(txDb))) };
}

async function statementTimeout(db: Database): Promise<{ current: string; ms: string }> {
  const [row] = await queryRows<{ current: string; ms: string }>(
    db,
    sql`SELECT current_setting('statement_timeout') AS current,
        (SELECT setting FROM pg_settings WHERE name = 'statement_timeout') AS ms`,
  );
  return row!;
}

for (const backend of backends) {
  describe(`function hooks on ${backend.name}`, () => {
    const postgres = openedFor(backend);
    const hooks = hookSchemaFor(postgres, backend.missing);
    const hookOf = async (statements: (name: string) => string, timeoutMs = HOOK_TIMEOUT_MS, returns = "jsonb") => {
      const name = await hooks.define(statements, returns);
      return { name, caller: createFunctionHook({ uri: hooks.uri(name), timeoutMs }) };
    };

    describe("the contract", () => {
      if (backend.name === "pglite") {
        beforeEach((context) => {
          if (context.task.name.includes("too slow")) context.skip(NO_STATEMENT_TIMEOUT);
        });
      }
      describeHookCallerContract(backend.name, async () => ({
        async hook(behaviour) {
          const { name, caller } = await hookOf(bodyOf(behaviour, hooks));
          return { caller, received: () => hooks.received(name) };
        },
        get stores() {
          return postgres().stores;
        },
        expected: {
          slow: { code: "unexpected_failure", message: /^Error running hook URI: / },
          fail: { code: "unexpected_failure", hookStatus: 500, message: "boom" },
        },
      }));
    });

    it("answers the status a PTxxx SQLSTATE names, with the message raised", async () => {
      const { caller } = await hookOf(
        () => `raise exception 'Only company addresses may sign up' using errcode = 'PT403';`,
      );
      const error = await failureOf(caller.call(PAYLOAD, postgres().stores));
      expect(error).toBeInstanceOf(AuthError);
      expect(error).toMatchObject({ code: "unknown", hookStatus: 403, message: "Only company addresses may sign up" });
    });

    it("fails a missing function, or schema, as a failure to run the hook, in words that tell nothing of the database", async () => {
      for (const uri of [hooks.uri("no_such_hook"), "pg-functions://postgres/no_such_schema_here/hook"]) {
        const error = await failureOf(createFunctionHook({ uri }).call(PAYLOAD, postgres().stores));
        expect(error).toBeInstanceOf(AuthError);
        const authError = error as AuthError;
        expect(authError.code).toBe("unexpected_failure");
        expect(authError.hookStatus).toBeUndefined();
        expect(authError.message).toBe(`Error running hook URI: ${uri}`);
        expect(authError.message).not.toMatch(/does not exist|jsonb|42883|3F000/);
        // The database's words stay with the error, for the log.
        expect(String(authError.cause)).toMatch(/does not exist/);
      }
      // Nothing was left half done: the stores go on serving.
      expect(await postgres().stores.users.findById(PAYLOAD.user_id)).toBeNull();
    });

    it("runs in the caller's transaction: the function sees what it wrote, and nothing once it rolled back", async () => {
      const users = getTableName(postgres().schema.users);
      const { caller } = await hookOf(
        () =>
          `return jsonb_build_object('found', exists(select 1 from public."${users}" where id = (payload->>'user_id')::uuid));`,
      );
      const user = aUser();
      const rollback = new Error("roll back");
      const rolledBack = await failureOf(
        postgres().tx.run(async (stores) => {
          await stores.users.insert(user);
          expect(await caller.call({ user_id: user.id }, stores)).toEqual({ found: true });
          throw rollback;
        }),
      );
      expect(rolledBack).toBe(rollback);
      expect(await caller.call({ user_id: user.id }, postgres().stores)).toEqual({ found: false });
      expect(await postgres().stores.users.findById(user.id)).toBeNull();
    });

    it("undoes only the failed call: the transaction goes on, and rolls back whole once the caller throws", async () => {
      const { name, caller } = await hookOf(bodyOf({ kind: "fail" }, hooks));
      const user = aUser();
      const failed = await failureOf(
        postgres().tx.run(async (stores) => {
          await stores.users.insert(user);
          const error = await failureOf(caller.call(PAYLOAD, stores));
          expect(error).toMatchObject({ code: "unexpected_failure", hookStatus: 500, message: "boom" });
          // The transaction is still usable: its statements run and see what it wrote.
          expect(await stores.users.findById(user.id)).toMatchObject({ id: user.id });
          throw error;
        }),
      );
      expect(failed).toBeInstanceOf(AuthError);
      expect(failed).toMatchObject({ code: "unexpected_failure", hookStatus: 500, message: "boom" });
      expect(await postgres().stores.users.findById(user.id)).toBeNull();
      expect(await hooks.received(name)).toEqual([]);
    });

    it("undoes only the failed call when the caller goes on: the transaction commits without what it wrote", async () => {
      const { name, caller } = await hookOf(bodyOf({ kind: "fail" }, hooks));
      const user = aUser();
      await postgres().tx.run(async (stores) => {
        await stores.users.insert(user);
        expect(await failureOf(caller.call(PAYLOAD, stores))).toMatchObject({ message: "boom" });
      });
      expect(await postgres().stores.users.findById(user.id)).toMatchObject({ id: user.id });
      // What the function wrote before it raised went with its savepoint.
      expect(await hooks.received(name)).toEqual([]);
    });

    it("reads a result of another type as JSON, and fails cleanly on one that is no JSON, leaving the transaction as it was", async () => {
      const jsonText = await hookOf(() => `return '{"decision": "continue"}';`, HOOK_TIMEOUT_MS, "text");
      const notJson = await hookOf(() => `return 'not json';`, HOOK_TIMEOUT_MS, "text");
      expect(await jsonText.caller.call(PAYLOAD, postgres().stores)).toEqual({ decision: "continue" });
      const seen = await postgres().db.transaction(async (txDb) => {
        await txDb.execute(sql.raw("SET LOCAL statement_timeout = 7000"));
        const error = await failureOf(notJson.caller.call(PAYLOAD, storesIn(postgres(), txDb)));
        return { error, after: await statementTimeout(txDb) };
      });
      expect(seen.error).toBeInstanceOf(AuthError);
      expect(seen.error).toMatchObject({ code: "unexpected_failure", message: "Error unmarshaling JSON output." });
      expect(seen.after).toEqual({ current: "7s", ms: "7000" });
    });

    it("runs under its own statement_timeout, never longer than the transaction's, which it puts back after", async () => {
      const reporting = () => `return jsonb_build_object('timeout', current_setting('statement_timeout'));`;
      const short = await hookOf(reporting, HOOK_TIMEOUT_MS);
      const long = await hookOf(reporting, 10_000);
      const failing = await hookOf(bodyOf({ kind: "fail" }, hooks));
      const seen = await postgres().db.transaction(async (txDb) => {
        await txDb.execute(sql.raw("SET LOCAL statement_timeout = 7000"));
        const stores = storesIn(postgres(), txDb);
        const underShort = await short.caller.call(PAYLOAD, stores);
        const afterSuccess = await statementTimeout(txDb);
        const underLong = await long.caller.call(PAYLOAD, stores);
        await failureOf(failing.caller.call(PAYLOAD, stores));
        const afterFailure = await statementTimeout(txDb);
        return { underShort, afterSuccess, underLong, afterFailure };
      });
      expect(seen).toEqual({
        underShort: { timeout: "200ms" },
        afterSuccess: { current: "7s", ms: "7000" },
        underLong: { timeout: "7s" },
        afterFailure: { current: "7s", ms: "7000" },
      });
    });
  });
}

// A request's deadline is PostgreSQL's (statement_timeout), which PGlite does not enforce. Opened as the server opens
// it: every statement bounded (API_MAX_REQUEST_DURATION), a request's given what is left of its own time.
describeIfAvailable(missingPostgresServer(), "function hooks under a request's deadline", () => {
  let opened: Postgres | undefined;
  const postgres = () => opened!;
  beforeAll(async () => {
    opened = await createPostgres({
      url: testDatabaseUrl(),
      namespace: randomNamespace(),
      maxPoolSize: 2,
      timeouts: { timeoutMs: 10_000 },
    });
  });
  afterAll(() => opened?.close());
  const hooks = hookSchemaFor(postgres, undefined);
  const slowHook = async (timeoutMs: number) =>
    createFunctionHook({ uri: hooks.uri(await hooks.define(bodyOf({ kind: "slow" }, hooks))), timeoutMs });
  const within = (ms: number) => postgres().within(Date.now() + ms);

  it("ends a function at its own limit, as the hook's failure, when the deadline is further", async () => {
    const caller = await slowHook(HOOK_TIMEOUT_MS);
    for (const attempt of [
      () => caller.call(PAYLOAD, within(10_000).stores),
      () => within(10_000).tx.run((stores) => caller.call(PAYLOAD, stores)),
    ]) {
      const started = Date.now();
      const error = await failureOf(attempt());
      expect(error).toBeInstanceOf(AuthError);
      expect(error).toMatchObject({ code: "unexpected_failure", message: `Error running hook URI: ${caller.uri}` });
      expect(Date.now() - started).toBeLessThan(1_500);
    }
  });

  it("keeps a function to its own limit when the driver would give the statement what the deadline leaves", async () => {
    // Without a bound of its own, the driver gives every statement of a request's transaction what is left of its
    // deadline, statement by statement: the hook function's lower limit must survive that.
    const unbounded = await createPostgres({ url: testDatabaseUrl(), namespace: randomNamespace(), maxPoolSize: 1 });
    try {
      const caller = await slowHook(HOOK_TIMEOUT_MS);
      const started = Date.now();
      const error = await unbounded
        .within(Date.now() + 10_000)
        .tx.run((stores) => caller.call(PAYLOAD, stores))
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: "unexpected_failure", message: `Error running hook URI: ${caller.uri}` });
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await unbounded.close();
    }
  });

  it("ends a function at the request's deadline, when it comes first, as request_timeout", async () => {
    const caller = await slowHook(2_000);
    for (const attempt of [
      () => caller.call(PAYLOAD, within(300).stores),
      () => within(300).tx.run((stores) => caller.call(PAYLOAD, stores)),
    ]) {
      const started = Date.now();
      const error = await failureOf(attempt());
      expect(isAuthError(error, "request_timeout")).toBe(true);
      expect((error as Error).cause).toMatchObject({ code: "57014" });
      expect(Date.now() - started).toBeLessThan(1_500);
    }
    // The connections came back fit for work.
    await postgres().ping();
    expect(postgres().poolCounts?.()).toMatchObject({ used: 0, pending: 0 });
  });
});
