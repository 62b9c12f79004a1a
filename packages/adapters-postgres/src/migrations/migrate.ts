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
