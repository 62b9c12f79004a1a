import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { closeOnce, type Database, type Driver } from "../database.ts";
import type { MigrationConnection } from "../migrations/migrate.ts";
import type { WrapQuery } from "./query-spans.ts";

export interface NodePostgresOptions {
  readonly url: string;
  /** 0 for no limit. */
  readonly maxPoolSize: number;
  readonly onPoolError?: (error: Error) => void;
  /** Traces the statements run through the pool and in transactions (query-spans.ts); none when absent. */
  readonly wrapQuery?: WrapQuery;
}

/** What a transaction's work runs its statements on: the connection, or a traced view of it. */
type Queries = Pick<pg.PoolClient, "query">;

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

  // Traced, the pool's own query (statements outside a transaction) and, through a view kept for the connection's
  // life, the query of each connection a transaction holds. Not the connections' themselves: pool.query runs on
  // one, and its statement would be traced twice.
  const { wrapQuery } = options;
  if (wrapQuery) pool.query = wrapQuery(pool.query.bind(pool));
  const views = new WeakMap<pg.PoolClient, Queries>();
  const queriesOf = (client: pg.PoolClient): Queries => {
    if (!wrapQuery) return client;
    let view = views.get(client);
    if (!view) {
      view = { query: wrapQuery(client.query.bind(client)) };
      views.set(client, view);
    }
    return view;
  };

  const withTransaction = async <T>(work: (client: Queries) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    const queries = queriesOf(client);
    // While checked out, the client has no pool listener: a connection lost between two statements would emit
    // 'error' with nobody listening. Record it instead, so the client is destroyed rather than reused.
    let broken: Error | undefined;
    const onError = (error: Error) => (broken ??= error);
    client.on("error", onError);
    try {
      // The locking reads rely on READ COMMITTED (each statement sees what committed before it), whatever the
      // database's default.
      await queries.query("BEGIN ISOLATION LEVEL READ COMMITTED");
      try {
        const result = await work(queries);
        const commit = await queries.query("COMMIT");
        // COMMIT of a transaction in which a statement failed answers ROLLBACK instead of an error; that happens
        // when `work` swallowed the failure, and it must not look like success.
        if (commit.command === "ROLLBACK")
          throw new Error("the transaction was rolled back: one of its statements failed");
        return result;
      } catch (error) {
        await queries.query("ROLLBACK").catch((rollbackError: Error) => (broken ??= rollbackError));
        throw error;
      }
    } finally {
      client.off("error", onError);
      client.release(broken);
    }
  };

  // One Database per pooled connection, kept for the connection's life: the statements prepared on it (see
  // stores/prepared.ts) are built once per connection, as PostgreSQL parses them once per connection.
  const bound = new WeakMap<Queries, Database>();
  const databaseOf = (client: Queries) => {
    let db = bound.get(client);
    if (!db) {
      // drizzle only calls `query` of a client it is given (its own transaction() is not used).
      db = drizzle({ client: client as pg.PoolClient });
      bound.set(client, db);
    }
    return db;
  };

  return {
    poolCounts: () => ({
      used: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      pending: pool.waitingCount,
    }),
    db: drizzle({ client: pool }),
    transaction: (work) => withTransaction((client) => work(databaseOf(client))),
    migrationTarget: {
      transaction: (work) =>
        withTransaction((client) => {
          const connection: MigrationConnection = {
            query: async <Row>(text: string, params: readonly unknown[]) =>
              (await client.query(text, [...params])).rows as Row[],
            // Without parameters node-postgres uses the simple protocol, which accepts several statements.
            exec: async (script) => void (await client.query(script)),
          };
          return work(connection);
        }),
    },
    ping: async () => void (await pool.query("SELECT 1")),
    listen: (channel, onNotify) => listenOn(options, channel, onNotify),
    close: closeOnce(() => pool.end()),
  };
}

const RECONNECT_FIRST_MS = 500;
const RECONNECT_LONGEST_MS = 30_000;

/**
 * LISTEN on a connection of its own, outside the pool (it is held for as long as the server runs). When the
 * connection drops it is re-established with backoff, and `onNotify` is called once since notifications sent in
 * between were lost.
 */
async function listenOn(
  options: NodePostgresOptions,
  channel: string,
  onNotify: () => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (delayMs: number): Promise<void> => {
    const next = new pg.Client({ connectionString: options.url });
    const reconnect = (error?: Error) => {
      if (error) options.onPoolError?.(error);
      next.removeAllListeners();
      void next.end().catch(() => undefined);
      if (stopped || client !== next) return;
      client = undefined;
      retry = setTimeout(
        () => void connect(Math.min(delayMs * 2, RECONNECT_LONGEST_MS)).then(onNotify, () => undefined),
        delayMs,
      );
    };
    next.on("notification", (message) => {
      if (message.channel === channel) onNotify();
    });
    next.on("error", reconnect);
    next.on("end", () => reconnect());
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
    } catch (error) {
      reconnect(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  };

  await connect(RECONNECT_FIRST_MS);
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const last = client;
    client = undefined;
    last?.removeAllListeners();
    await last?.end().catch(() => undefined);
  };
}
