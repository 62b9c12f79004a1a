import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { closeOnce, type Driver } from "../database.ts";
import type { MigrationConnection } from "../migrations/migrate.ts";

export interface NodePostgresOptions {
  readonly url: string;
  /** 0 for no limit. */
  readonly maxPoolSize: number;
  readonly onPoolError?: (error: Error) => void;
}

/** A pool of node-postgres connections; every transaction holds one connection from BEGIN to COMMIT. */
export function createNodePostgresDriver(options: NodePostgresOptions): Driver {
  const pool = new pg.Pool({
    connectionString: options.url,
    // pg-pool reads `max` as `max || 10`, so 0 would mean 10; it refuses a new client when
    // `clients.length >= max`, which never holds for Infinity.
    max: options.maxPoolSize === 0 ? Infinity : options.maxPoolSize,
  });
  // An idle connection that breaks (server restart, network) is reported here and dropped by the pool; without a
  // listener the 'error' event would crash the process.
  pool.on("error", (error) => options.onPoolError?.(error));

  const withTransaction = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    // While checked out, the client has no pool listener: a connection lost between two statements would emit
    // 'error' with nobody listening. Record it instead, so the client is destroyed rather than reused.
    let broken: Error | undefined;
    const onError = (error: Error) => (broken ??= error);
    client.on("error", onError);
    try {
      // The locking reads rely on READ COMMITTED (each statement sees what committed before it), whatever the
      // database's default.
      await client.query("BEGIN ISOLATION LEVEL READ COMMITTED");
      try {
        const result = await work(client);
        const commit = await client.query("COMMIT");
        // COMMIT of a transaction in which a statement failed answers ROLLBACK instead of an error; that happens
        // when `work` swallowed the failure, and it must not look like success.
        if (commit.command === "ROLLBACK") throw new Error("the transaction was rolled back: one of its statements failed");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackError: Error) => (broken ??= rollbackError));
        throw error;
      }
    } finally {
      client.off("error", onError);
      client.release(broken);
    }
  };

  return {
    db: drizzle({ client: pool }),
    transaction: (work) => withTransaction((client) => work(drizzle({ client }))),
    migrationTarget: {
      transaction: (work) =>
        withTransaction((client) => {
          const connection: MigrationConnection = {
            query: async <Row>(text: string, params: readonly unknown[]) => (await client.query(text, [...params])).rows as Row[],
            // Without parameters node-postgres uses the simple protocol, which accepts several statements.
            exec: async (script) => void (await client.query(script)),
          };
          return work(connection);
        }),
    },
    ping: async () => void (await pool.query("SELECT 1")),
    close: closeOnce(() => pool.end()),
  };
}
