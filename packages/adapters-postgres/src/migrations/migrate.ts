import { validateNamespace } from "../namespace.ts";
import { migrations as allMigrations } from "./index.ts";
import type { Migration } from "./migration.ts";

/** The one connection a migration run holds, inside its transaction. */
export interface MigrationConnection {
  /** One statement, with `$1`… parameters. */
  query<Row>(text: string, params: readonly unknown[]): Promise<Row[]>;
  /** A script of several statements, without parameters. */
  exec(script: string): Promise<void>;
}

/** What the runner needs of a driver: one transaction on one connection. */
export interface MigrationTarget {
  /** Commits when `work` resolves, rolls back when it throws. */
  transaction<T>(work: (connection: MigrationConnection) => Promise<T>): Promise<T>;
}

/**
 * Tables named as ours are already in the schema we would create ours in, and are not ours: another program's
 * (Supabase Auth's, when its `users` has GoTrue's `encrypted_password`), found before anything is written.
 */
export class ForeignTablesError extends Error {
  constructor(
    /** The schema new tables go to (the first of the search_path that exists). */
    readonly schema: string,
    readonly tables: readonly string[],
    /** Whether they are Supabase Auth's (GoTrue's) own. */
    readonly supabaseAuth: boolean,
  ) {
    super(
      `schema "${schema}" already has tables named as Latchkey's and not made by it${supabaseAuth ? " (Supabase Auth's)" : ""}: ${tables.join(", ")}`,
    );
    this.name = "ForeignTablesError";
  }
}

// First key of the two-key advisory lock, so that our locks stay apart from other users of advisory locks on the
// same database; the second key is the namespace's hash.
const LOCK_CLASS = 0x4c4b;

/**
 * Applies the pending migrations of `namespace` in one transaction and returns their versions (empty when there
 * were none). Runners of one namespace take turns on an advisory lock, so concurrent starts apply each migration
 * exactly once; the lock is transaction-scoped, so a runner that dies never leaves it held.
 */
export async function migrate(
  target: MigrationTarget,
  namespace: string,
  migrations: readonly Migration[] = allMigrations,
): Promise<string[]> {
  const ns = validateNamespace(namespace);
  const table = `"${ns}schema_migrations"`;
  return target.transaction(async (connection) => {
    await connection.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_CLASS, `latchkey:${ns}`]);
    // After the lock: the runner that held it before us has committed, and READ COMMITTED shows us what it did.
    await refuseForeignTables(connection, ns, migrations);
    await connection.exec(
      `CREATE TABLE IF NOT EXISTS ${table} (
        "version" text NOT NULL,
        "applied_at" timestamptz NOT NULL,
        CONSTRAINT "${ns}schema_migrations_pkey" PRIMARY KEY ("version")
      )`,
    );
    const rows = await connection.query<{ version: string }>(`SELECT "version" FROM ${table}`, []);
    const applied = new Set(rows.map((row) => row.version));
    const pending = migrations.filter((migration) => !applied.has(migration.version));
    for (const migration of pending) {
      await connection.exec(migration.up(ns));
      await connection.query(`INSERT INTO ${table} ("version", "applied_at") VALUES ($1, now())`, [migration.version]);
    }
    return pending.map((migration) => migration.version);
  });
}

/** The tables a migration creates, from its script. */
function tablesCreatedBy(migration: Migration, ns: string): string[] {
  return [...migration.up(ns).matchAll(/CREATE TABLE "([^"]+)"/g)].map((match) => match[1]!);
}

/**
 * Refuses to go on when the schema holds tables of our names that we did not create: our CREATE TABLE would fail
 * half-way with `relation "users" already exists`, or, for a migrations table of another program (GoTrue keeps
 * one of the same name), we would read its versions as ours. Ours are those our own migrations table records.
 */
async function refuseForeignTables(
  connection: MigrationConnection,
  ns: string,
  migrations: readonly Migration[],
): Promise<void> {
  const names = [`${ns}schema_migrations`, ...migrations.flatMap((migration) => tablesCreatedBy(migration, ns))];
  const found = await connection.query<{ schema: string; table: string; has_applied_at: boolean; gotrue: boolean }>(
    `SELECT current_schema() AS "schema", c.relname AS "table",
       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'applied_at' AND NOT a.attisdropped) AS has_applied_at,
       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'encrypted_password' AND NOT a.attisdropped) AS gotrue
     FROM pg_class c
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND c.relname = ANY($1)`,
    [names],
  );
  if (found.length === 0) return;
  const migrationsTable = found.find((row) => row.table === `${ns}schema_migrations`);
  let ours = new Set<string>();
  if (migrationsTable?.has_applied_at) {
    const applied = new Set(
      (await connection.query<{ version: string }>(`SELECT "version" FROM "${ns}schema_migrations"`, [])).map(
        (row) => row.version,
      ),
    );
    ours = new Set([
      `${ns}schema_migrations`,
      ...migrations.filter((m) => applied.has(m.version)).flatMap((m) => tablesCreatedBy(m, ns)),
    ]);
  }
  const foreign = found.filter((row) => !ours.has(row.table));
  if (foreign.length === 0) return;
  const gotrue =
    foreign.some((row) => row.gotrue) || (migrationsTable !== undefined && !migrationsTable.has_applied_at);
  throw new ForeignTablesError(found[0]!.schema, foreign.map((row) => row.table).sort(), gotrue);
}
