import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { type Connection, type ConnectionEvents, closeOnce, type Database, type Driver } from "../database.ts";
import type { MigrationConnection } from "../migrations/migrate.ts";
import { createAcquirer } from "./acquire.ts";
import type { WrapQuery } from "./query-spans.ts";
import { createTimeBudget, type TimeBudgetOptions, type TransactionClock } from "./time-budget.ts";
import { unfitForWork } from "./unfit-connection.ts";
import { checkWritable } from "./writable-check.ts";

export interface NodePostgresOptions {
  readonly url: string;
  /** 0 for no limit. */
  readonly maxPoolSize: number;
  readonly onPoolError?: (error: Error) => void;
  readonly listenConnection?: ConnectionEvents | undefined;
  /** Traces the statements run through the pool and in transactions (query-spans.ts); none when absent. */
  readonly wrapQuery?: WrapQuery;
  /** How long statements, lock waits and connections may take (time-budget.ts); no limit when absent. */
  readonly timeouts?: TimeBudgetOptions | undefined;
}

/** What a transaction's work runs its statements on: the connection, or a traced view of it. */
type Queries = Pick<pg.PoolClient, "query">;
/** node-postgres's `query`, in the forms used here (text or config, then values), whatever each returns. */
type RunQuery = (...args: unknown[]) => Promise<unknown>;
const runner =
  (queries: Queries): RunQuery =>
  (...args) =>
    Reflect.apply(queries.query, queries, args) as Promise<unknown>;

/** A connection's queries for its life: as they are (traced when tracing is on), and checked against the deadline. */
interface Views {
  readonly plain: Queries;
  readonly timed: Queries;
}

// The locking reads rely on READ COMMITTED (each statement sees what committed before it), whatever the database's
// default.
const BEGIN = "BEGIN ISOLATION LEVEL READ COMMITTED";

/**
 * A pool of node-postgres connections; every transaction holds one connection from BEGIN to COMMIT. With
 * `timeouts`, each connection gets statement_timeout and lock_timeout from it, connecting and waiting for a
 * connection end at it too, and work with a deadline (a request's: `transaction` and `onConnection` are given it)
 * gets what is left of its time: a transaction sets it after BEGIN (in the same round trip) and lowers it before a
 * statement when much less is left; a statement outside a transaction started late runs in one of its own that
 * sets it.
 */
export function createNodePostgresDriver(options: NodePostgresOptions): Driver {
  const budget = createTimeBudget(options.timeouts ?? {});
  const { sessionSettings } = budget;
  const timeoutMs = options.timeouts?.timeoutMs;
  const pool = new pg.Pool({
    connectionString: options.url,
    // pg-pool reads `max` as `max || 10`, so 0 would mean 10; it refuses a new client when
    // `clients.length >= max`, which never holds for Infinity.
    max: options.maxPoolSize === 0 ? Infinity : options.maxPoolSize,
    // Waiting in the pool's queue, and establishing a connection, end at the bound (a host that drops packets would
    // otherwise be waited on for minutes); a request's deadline may end them sooner (acquire.ts).
    ...(timeoutMs === undefined ? {} : { connectionTimeoutMillis: Math.ceil(timeoutMs) }),
    // Run before the connection is first handed out. A SET, not startup parameters, which PgBouncer refuses.
    ...(sessionSettings === undefined
      ? {}
      : { onConnect: async (client: pg.ClientBase) => void (await client.query(sessionSettings)) }),
  });
  // An idle connection that breaks (server restart, network) is reported here and dropped by the pool; without a
  // listener the 'error' event would crash the process.
  pool.on("error", (error) => options.onPoolError?.(error));
  const { acquire, waitingCount } = createAcquirer(pool);

  // Connections a statement failed on in a way that says the session cannot do the work (unfitForWork): destroyed
  // when given back, whether or not the caller let the failure through.
  const unfit = new WeakMap<pg.PoolClient, Error>();

  // The transaction each checked-out connection is running, with its deadline: what its statements check.
  const clocks = new WeakMap<pg.PoolClient, TransactionClock>();
  // Traced, the query of each connection, through a view kept for the connection's life: every statement runs on a
  // connection checked out here, the pool's own query included (below), so each is traced once.
  const { wrapQuery } = options;
  const views = new WeakMap<pg.PoolClient, Views>();
  const viewsOf = (client: pg.PoolClient): Views => {
    let found = views.get(client);
    if (!found) {
      const query: RunQuery = wrapQuery ? (wrapQuery(client.query.bind(client)) as RunQuery) : runner(client);
      const plain: Queries = { query: watched(client, query) as unknown as Queries["query"] };
      const run = runner(plain);
      const timed = async (...args: unknown[]) => {
        const clock = clocks.get(client);
        const settings = clock && budget.beforeStatement(clock);
        if (settings !== undefined) await run(settings);
        return run(...args);
      };
      found = { plain, timed: { query: timed as unknown as Queries["query"] } };
      views.set(client, found);
    }
    return found;
  };

  /** `query`, noting the connection as unfit when a statement fails in a way that says so. */
  const watched =
    (client: pg.PoolClient, query: RunQuery): RunQuery =>
    (...args) => {
      const result = query(...args);
      // A branch of its own, handled: the caller still gets the rejection.
      result.catch((error: unknown) => {
        if (unfitForWork(error)) unfit.set(client, error instanceof Error ? error : new Error(String(error)));
      });
      return result;
    };

  /**
   * Runs `work` on a connection checked out for it, then gives it back; one that broke meanwhile, or whose session
   * turned out unfit for work (read-only, shutting down), is destroyed, so that the next one connects afresh.
   */
  const withConnection = async <T>(
    deadlineAt: number | undefined,
    work: (client: pg.PoolClient, broke: (error: Error) => void) => Promise<T>,
  ): Promise<T> => {
    const client = await acquire(deadlineAt);
    // While checked out, the client has no pool listener: a connection lost between two statements would emit
    // 'error' with nobody listening. Record it instead, so the client is destroyed rather than reused.
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken ??= error;
    };
    client.on("error", onError);
    try {
      return await work(client, onError);
    } finally {
      client.off("error", onError);
      client.release(broken ?? unfit.get(client));
    }
  };

  /**
   * Runs `work` in a transaction on a connection already checked out. What it sets after BEGIN is decided now, once
   * the connection is there: waiting for one may have taken most of the time.
   */
  const inTransaction = async <T>(
    client: pg.PoolClient,
    broke: (error: Error) => void,
    deadlineAt: number | undefined,
    work: (client: Queries) => Promise<T>,
    bounded: boolean,
  ): Promise<T> => {
    const { plain, timed } = viewsOf(client);
    const { settings, clock } = bounded ? budget.begin(deadlineAt) : { settings: budget.unbounded, clock: undefined };
    // Several statements in one simple query: one round trip.
    await plain.query(settings === undefined ? BEGIN : `${BEGIN}; ${settings}`);
    if (clock) clocks.set(client, clock);
    try {
      const result = await work(timed);
      // Not checked against the deadline: the work is done, and finishing it costs less than undoing it.
      const commit = await plain.query("COMMIT");
      // COMMIT of a transaction in which a statement failed answers ROLLBACK instead of an error; that happens
      // when `work` swallowed the failure, and it must not look like success.
      if (commit.command === "ROLLBACK")
        throw new Error("the transaction was rolled back: one of its statements failed");
      return result;
    } catch (error) {
      await plain.query("ROLLBACK").catch(broke);
      throw error;
    } finally {
      clocks.delete(client);
    }
  };

  const withTransaction = <T>(
    deadlineAt: number | undefined,
    work: (client: Queries) => Promise<T>,
    bounded = true,
  ): Promise<T> =>
    withConnection(deadlineAt, (client, broke) => inTransaction(client, broke, deadlineAt, work, bounded));

  /**
   * A statement outside a transaction, on `client`: under the connection's own timeouts when they end it by the
   * deadline (give or take a tenth of the bound), or else in a transaction of its own that sets what is left.
   * Decided as it starts: work that waited for a connection, or ran statements before, may have little time left.
   */
  const autocommit = (
    client: pg.PoolClient,
    broke: (error: Error) => void,
    deadlineAt: number | undefined,
    args: unknown[],
  ): Promise<unknown> =>
    deadlineAt === undefined || budget.sessionFits(deadlineAt)
      ? runner(viewsOf(client).plain)(...args)
      : inTransaction(client, broke, deadlineAt, (queries) => runner(queries)(...args), true);

  // The pool's own query, which drizzle outside a transaction and ping use: work with no deadline of its own (the
  // outbox worker, maintenance), bounded by timeoutMs. The callback forms are not supported: nothing here uses them.
  const statement: RunQuery = async (...args) => {
    const deadlineAt = budget.deadlineAt();
    return withConnection(deadlineAt, (client, broke) => autocommit(client, broke, deadlineAt, args));
  };
  pool.query = statement as unknown as typeof pool.query;

  // The work each connection checked out by onConnection is doing now: its deadline, and where a failure of the
  // connection goes. A connection does one piece of work at a time, so its statements read it here.
  const working = new WeakMap<pg.PoolClient, { deadlineAt: number; broke: (error: Error) => void }>();
  // One Connection per pooled connection, kept for its life, as databaseOf keeps a Database: the statements prepared
  // on it are built once.
  const connections = new WeakMap<pg.PoolClient, Connection>();
  const connectionOf = (client: pg.PoolClient): Connection => {
    let found = connections.get(client);
    if (!found) {
      const current = () => {
        const work = working.get(client);
        if (!work) throw new Error("a statement on a connection no work holds");
        return work;
      };
      const query: RunQuery = async (...args) => {
        const { deadlineAt, broke } = current();
        return autocommit(client, broke, deadlineAt, args);
      };
      found = {
        // drizzle only calls `query` of a client it is given.
        db: drizzle({ client: { query } as unknown as pg.PoolClient }),
        atomic: (work) => {
          const { deadlineAt, broke } = current();
          return inTransaction(client, broke, deadlineAt, (queries) => work(databaseOf(queries)), true);
        },
      };
      connections.set(client, found);
    }
    return found;
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
      pending: pool.waitingCount + waitingCount(),
    }),
    db: drizzle({ client: pool }),
    transaction: (work, deadlineAt) =>
      withTransaction(budget.deadlineAt(deadlineAt), (client) => work(databaseOf(client))),
    onConnection: (deadlineAt, work) =>
      withConnection(deadlineAt, async (client, broke) => {
        working.set(client, { deadlineAt, broke });
        try {
          return await work(connectionOf(client));
        } finally {
          working.delete(client);
        }
      }),
    migrationTarget: {
      // No statement timeout: a migration may rewrite a big table, and waits its turn on the migration lock.
      transaction: (work) =>
        withTransaction(
          budget.deadlineAt(),
          (client) => {
            const connection: MigrationConnection = {
              query: async <Row>(text: string, params: readonly unknown[]) =>
                (await client.query(text, [...params])).rows as Row[],
              // Without parameters node-postgres uses the simple protocol, which accepts several statements.
              exec: async (script) => void (await client.query(script)),
            };
            return work(connection);
          },
          false,
        ),
    },
    ping: async () => void (await pool.query("SELECT 1")),
    checkWritable: (timeoutMs) =>
      checkWritable(options.url, timeoutMs, async () => {
        const { rows } = await pool.query<{ transaction_read_only: string }>("SHOW transaction_read_only");
        return rows[0]?.transaction_read_only;
      }),
    listen: (channel, onNotify) => listenOn(options, channel, onNotify),
    close: closeOnce(() => pool.end()),
  };
}

/** The first wait before reconnecting the LISTEN connection, doubled after each failed attempt. */
const RECONNECT_FIRST_MS = 500;
/**
 * The longest wait between attempts. Short: until it is back, new mail waits for the outbox worker's poll, and an
 * attempt costs a refused connection; a long backoff would keep it away for up to this long after the database is.
 */
const RECONNECT_LONGEST_MS = 2_000;
/** How long one attempt to connect may take: a database host that drops packets is otherwise waited on for minutes. */
const CONNECT_TIMEOUT_MS = 5_000;
/** TCP keepalive probes notice a connection that went silent (a lost host): nothing else is sent on this one. */
const KEEPALIVE_DELAY_MS = 10_000;

/**
 * LISTEN on a connection of its own, outside the pool (it is held for as long as the server runs). When the
 * connection drops it is re-established, waiting RECONNECT_FIRST_MS then twice as long after each failed attempt up
 * to RECONNECT_LONGEST_MS, and `onNotify` is called once since notifications sent in between were lost. The
 * first connection's failure is the caller's; `listenConnection` hears of later ones, once per outage.
 */
async function listenOn(
  options: NodePostgresOptions,
  channel: string,
  onNotify: () => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  /** The connection listening now; none between a loss and the next successful attempt. */
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let lost = false;

  const reportLost = (error: unknown) => {
    if (lost) return;
    lost = true;
    options.listenConnection?.lost(error instanceof Error ? error : new Error(String(error)));
  };

  const open = async (): Promise<pg.Client> => {
    const next = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    });
    // Until it listens, a failure rejects connect() or query(); an 'error' without a listener would crash.
    next.on("error", () => undefined);
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
      return next;
    } catch (error) {
      void next.end().catch(() => undefined);
      throw error;
    }
  };

  const watch = (listening: pg.Client) => {
    const broke = (error: Error) => {
      listening.removeAllListeners();
      listening.on("error", () => undefined);
      void listening.end().catch(() => undefined);
      if (stopped || client !== listening) return;
      client = undefined;
      reportLost(error);
      reconnectAfter(RECONNECT_FIRST_MS);
    };
    listening.removeAllListeners();
    listening.on("notification", (message) => {
      if (message.channel === channel) onNotify();
    });
    listening.on("error", broke);
    listening.on("end", () => broke(new Error("the LISTEN connection was closed")));
    client = listening;
  };

  const reconnectAfter = (delayMs: number) => {
    retry = setTimeout(async () => {
      if (stopped) return;
      let next: pg.Client;
      try {
        next = await open();
      } catch (error) {
        reportLost(error);
        if (!stopped) reconnectAfter(Math.min(delayMs * 2, RECONNECT_LONGEST_MS));
        return;
      }
      if (stopped) {
        await next.end().catch(() => undefined);
        return;
      }
      watch(next);
      if (lost) {
        lost = false;
        options.listenConnection?.restored();
      }
      onNotify();
    }, delayMs);
  };

  watch(await open());
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const last = client;
    client = undefined;
    last?.removeAllListeners();
    last?.on("error", () => undefined);
    await last?.end().catch(() => undefined);
  };
}
