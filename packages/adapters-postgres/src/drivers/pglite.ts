import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { type Connection, closeOnce, type Database, type Driver } from "../database.ts";
import type { MigrationConnection } from "../migrations/migrate.ts";
import { lockDataDir } from "./data-dir-lock.ts";

export interface PgliteOptions {
  /** Directory of the database files; in memory when absent. */
  readonly dataDir?: string;
  /** An open PGlite to use instead of opening one; left open by `close()` (see PostgresOptions.sharedEmbedded). */
  readonly shared?: PGlite;
}

/**
 * Embedded PostgreSQL (WASM) in this process: one connection, so no pool. Concurrency is PGlite's own: a
 * transaction holds its transaction mutex from BEGIN until COMMIT or ROLLBACK, and every statement issued outside
 * a transaction (`query`, `exec`, which drizzle uses) waits for that mutex. So transactions run one at a time,
 * a statement outside never lands inside someone else's transaction, and a transaction sees what the one before
 * it committed. The price: code inside `tx.run` must use the stores it is given, never the non-transactional
 * ones, or it waits for itself.
 *
 * A data directory is locked while the driver is open (data-dir-lock.ts): a second opener, in this process or
 * another, is refused with EmbeddedDatabaseInUseError.
 */
export async function createPgliteDriver(options: PgliteOptions): Promise<Driver> {
  if (options.shared) return driverOf(options.shared, async () => {}, { owned: false });
  // `memory://` (PGlite's own in-memory URL, as the tests use) is no directory another process could open.
  if (options.dataDir === undefined || options.dataDir.startsWith("memory://")) {
    return driverOf(await PGlite.create(options.dataDir), async () => {}, { owned: true });
  }
  const lock = await lockDataDir(options.dataDir);
  let client: PGlite;
  try {
    client = await PGlite.create(options.dataDir);
  } catch (error) {
    await lock.release();
    throw error;
  }
  return driverOf(client, lock.release, { owned: true });
}

function driverOf(client: PGlite, unlock: () => Promise<void>, { owned }: { owned: boolean }): Driver {
  const db = drizzle({ client });
  // One connection, and no time limits (PGlite has no statement_timeout to end work at a deadline): deadlines are
  // not read. drizzle's PGlite transaction is PGlite's `transaction`, which also refuses to report success when a
  // failed statement turned COMMIT into ROLLBACK.
  const transaction = <T>(work: (db: Database) => Promise<T>) => db.transaction((tx) => work(tx));
  const connection: Connection = { db, atomic: transaction };
  return {
    db,
    transaction,
    onConnection: (_deadlineAt, work) => work(connection),
    migrationTarget: {
      transaction: (work) =>
        client.transaction((tx) => {
          const connection: MigrationConnection = {
            query: async <Row>(text: string, params: readonly unknown[]) =>
              (await tx.query<Row>(text, [...params])).rows,
            exec: async (script) => void (await tx.exec(script)),
          };
          return work(connection);
        }),
    },
    ping: async () => void (await client.query("SELECT 1")),
    // One connection, in this process, never read-only: answering is being writable.
    checkWritable: async () => void (await client.query("SELECT 1")),
    listen: async (channel, onNotify) => {
      const stop = await client.listen(channel, () => onNotify());
      return () => stop();
    },
    close: closeOnce(async () => {
      if (!owned) return;
      try {
        await client.close();
      } finally {
        await unlock();
      }
    }),
  };
}
