import { aSession, aUser, skipAllIfMissing } from "@latchkey/domain/testing";
import { getTableName, sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  createPostgres,
  createSchema,
  ForeignTablesError,
  type MigrationTarget,
  migrate,
  migrations,
  type Postgres,
  tablesOf,
} from "../src/index.ts";
import {
  dropTables,
  openEmbeddedTestDatabase,
  randomNamespace,
  sharedEmbeddedTestDatabase,
  testDatabaseUrl,
} from "../src/testing/index.ts";
import { aOneTimeToken, backends, queryRows } from "./support.ts";

const versions = migrations.map((migration) => migration.version);

describe.each(backends)("$name migrations", (backend) => {
  skipAllIfMissing(backend.missing);
  const opened: Postgres[] = [];
  // Each namespace on the server, or on this process's embedded database.
  const open = async (namespace = randomNamespace(), maxPoolSize = 2) => {
    const postgres = await createPostgres({
      url: backend.name === "postgres" ? testDatabaseUrl() : undefined,
      sharedEmbedded: backend.name === "pglite" ? await sharedEmbeddedTestDatabase() : undefined,
      namespace,
      maxPoolSize,
    });
    opened.push(postgres);
    return postgres;
  };
  afterAll(async () => {
    for (const postgres of opened) {
      await dropTables(postgres);
      await postgres.close();
    }
  });

  it("applies every migration once, records it, and then has nothing to do", async () => {
    const postgres = await open();
    expect(await postgres.migrate()).toEqual(versions);
    expect(await postgres.migrate()).toEqual([]);
    const recorded = await postgres.db.select().from(postgres.schema.schemaMigrations);
    expect(recorded.map((row) => row.version)).toEqual(versions);
    for (const row of recorded) expect(row.appliedAt).toBeInstanceOf(Date);
  });

  // What takes connections of their own: PGlite has one.
  if (backend.name === "postgres") {
    it("lets runners started at once apply each migration exactly once", async () => {
      const namespace = randomNamespace();
      // Each runner is a pool of its own, hence a connection of its own.
      const runners = await Promise.all([1, 2, 3, 4].map(() => open(namespace, 1)));
      const applied = await Promise.all(runners.map((runner) => runner.migrate()));
      expect(applied.flat()).toEqual(versions);
      const recorded = await runners[0]!.db.select().from(runners[0]!.schema.schemaMigrations);
      expect(recorded.map((row) => row.version)).toEqual(versions);
    });

    it("upgrades a database of the previous version, keeping its rows", async () => {
      const namespace = randomNamespace();
      const postgres = await open(namespace);
      const client = new pg.Client({ connectionString: testDatabaseUrl() });
      await client.connect();
      try {
        expect(await migrate(clientTarget(client), namespace, migrations.slice(0, -1))).toEqual(versions.slice(0, -1));
        // Written as the previous version wrote them: without the columns the last migration adds.
        const user = aUser({ identities: [] });
        await client.query(
          `INSERT INTO "${namespace}users" (id, aud, role, email, app_metadata, user_metadata, is_anonymous, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [
            user.id,
            user.aud,
            user.role,
            user.email,
            user.appMetadata,
            user.userMetadata,
            user.isAnonymous,
            user.createdAt,
            user.updatedAt,
          ],
        );
        const token = aOneTimeToken(user.id);
        await client.query(
          `INSERT INTO "${namespace}one_time_tokens" (id, user_id, kind, relates_to, link_token_hash, otp_hash, failed_attempts, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            token.id,
            token.userId,
            token.kind,
            token.relatesTo,
            token.linkTokenHash,
            token.otpHash,
            token.failedAttempts,
            token.createdAt,
          ],
        );
        const session = aSession(user.id);
        await client.query(
          `INSERT INTO "${namespace}sessions" (id, user_id, aal, amr, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)`,
          [session.id, session.userId, session.aal, JSON.stringify(session.amr), session.createdAt, session.updatedAt],
        );
        expect(await postgres.migrate()).toEqual(versions.slice(-1));
        expect(await postgres.stores.oneTimeTokens.findByUser(user.id, token.kind)).toEqual(token);
        expect(await postgres.stores.users.findById(user.id)).toMatchObject({
          email: user.email,
          emailChangeConfirmedBy: null,
          isSsoUser: false,
          factors: [],
        });
        // A session signed in before MFA existed: at aal1, through no factor.
        expect((await postgres.stores.users.findWithSession(user.id, session.id))?.session).toMatchObject({
          aal: "aal1",
          factorId: null,
          amr: session.amr,
        });
      } finally {
        await client.end();
      }
    });
  }

  it("prefixes the namespace to every index and constraint of its tables", async () => {
    const postgres = await open();
    await postgres.migrate();
    const prefix = postgres.schema.namespace;
    const names = await queryRows<{ kind: string; name: string }>(
      postgres.db,
      sql`
        with ours as (
          select c.oid from pg_class c
          where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r' and starts_with(c.relname, ${prefix})
        )
        select 'index' as kind, i.relname::text as name from pg_index x join pg_class i on i.oid = x.indexrelid
        where x.indrelid in (select oid from ours)
        union all
        select 'constraint', conname::text from pg_constraint where conrelid in (select oid from ours)`,
    );
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((object) => !object.name.startsWith(prefix))).toEqual([]);
  });

  it("refuses a namespace that is not a plain identifier before any SQL", async () => {
    await expect(open('x"; drop table users; --')).rejects.toThrow(/DB_NAMESPACE/);
    expect(() => createSchema("1starts_with_digit")).toThrow(/DB_NAMESPACE/);
    const target = { transaction: () => Promise.reject(new Error("must not be reached")) };
    await expect(migrate(target, "bad-name")).rejects.toThrow(/DB_NAMESPACE/);
  });

  it("refuses, before writing anything, a schema that holds Supabase Auth's tables under our names", async () => {
    const namespace = randomNamespace();
    const postgres = await open(namespace);
    // GoTrue's shapes, as far as the check looks: a migrations table without applied_at, users with encrypted_password.
    for (const statement of [
      `CREATE TABLE "${namespace}schema_migrations" (version varchar(255) PRIMARY KEY)`,
      `INSERT INTO "${namespace}schema_migrations" VALUES ('20171026211738')`,
      `CREATE TABLE "${namespace}users" (id uuid PRIMARY KEY, encrypted_password varchar(255))`,
      `CREATE TABLE "${namespace}identities" (id uuid PRIMARY KEY)`,
    ]) {
      await postgres.db.execute(sql.raw(statement));
    }
    const refused = await postgres.migrate().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ForeignTablesError);
    expect(refused).toMatchObject({
      supabaseAuth: true,
      tables: [`${namespace}schema_migrations`, `${namespace}users`, `${namespace}identities`].sort(),
    });
    const [row] = await queryRows<{ schema: string }>(postgres.db, sql`select current_schema() as schema`);
    expect((refused as ForeignTablesError).schema).toBe(row?.schema);
    const sessions = await queryRows<{ found: string | null }>(
      postgres.db,
      sql`select to_regclass(${`"${namespace}sessions"`})::text as found`,
    );
    expect(sessions).toEqual([{ found: null }]);
  });

  it("refuses an application's own table of one of our names, and then migrates once it is out of the way", async () => {
    const namespace = randomNamespace();
    const postgres = await open(namespace);
    await postgres.db.execute(sql.raw(`CREATE TABLE "${namespace}sessions" (id serial PRIMARY KEY)`));
    await expect(postgres.migrate()).rejects.toMatchObject({
      name: "ForeignTablesError",
      supabaseAuth: false,
      tables: [`${namespace}sessions`],
    });
    await postgres.db.execute(sql.raw(`DROP TABLE "${namespace}sessions"`));
    expect(await postgres.migrate()).toEqual(versions);
    expect(await postgres.migrate()).toEqual([]);
  });
});

describe("a namespace on a database of its own", () => {
  it("leaves no object of ours without the prefix", async () => {
    // A fresh PGlite holds nothing but what the migrations create, so every relation and constraint is ours.
    const client = await openEmbeddedTestDatabase();
    const postgres = await createPostgres({ sharedEmbedded: client, namespace: "lk_", maxPoolSize: 0 });
    try {
      await postgres.migrate();
      const objects = await queryRows<{ name: string }>(
        postgres.db,
        sql`
          select relname::text as name from pg_class where relnamespace = current_schema()::regnamespace
          union all
          select conname::text from pg_constraint where connamespace = current_schema()::regnamespace`,
      );
      expect(objects.length).toBeGreaterThan(10);
      expect(objects.filter((object) => !object.name.startsWith("lk_"))).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("works without a namespace", async () => {
    const client = await openEmbeddedTestDatabase();
    const postgres = await createPostgres({ sharedEmbedded: client, namespace: "", maxPoolSize: 0 });
    try {
      expect(await postgres.migrate()).toEqual(versions);
      const tables = await queryRows<{ name: string }>(
        postgres.db,
        sql`select relname::text as name from pg_class where relnamespace = current_schema()::regnamespace and relkind = 'r' order by 1`,
      );
      // Every table of the schema, under its plain name.
      const expected = tablesOf(createSchema(""))
        .map((table) => getTableName(table))
        .sort();
      expect(tables.map((table) => table.name)).toEqual(expected);
    } finally {
      await client.close();
    }
  });
});

/** The migration runner's view of one pg client: what the drivers give it, without their pools. */
function clientTarget(client: pg.Client): MigrationTarget {
  return {
    async transaction(work) {
      await client.query("BEGIN");
      try {
        const result = await work({
          query: async <Row>(text: string, params: readonly unknown[]) =>
            (await client.query(text, [...params])).rows as Row[],
          exec: async (script) => void (await client.query(script)),
        });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    },
  };
}
