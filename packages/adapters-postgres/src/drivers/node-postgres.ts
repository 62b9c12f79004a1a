import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { type Connection, type ConnectionEvents, closeOnce, type Database, type Driver } from "../database.ts";
import type { MigrationConnection, MigrationTarget } from "../migrations/migrate.ts";
import { type Acquirer, createAcquirer } from "./acquire.ts";
import type { WrapQuery } from "./query-spans.ts";
import { createTimeBudget, type TimeBudget, type TimeBudgetOptions, type TransactionClock } from "./time-budget.ts";
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

/** What the driver's steps share about the pool and the connections checked out of it. */
interface Sessions {
  readonly budget: TimeBudget;
  readonly acquire: Acquirer["acquire"];
  /**
   * Connections a statement failed on in a way that says the session cannot do the work (unfitForWork): destroyed
   * when given back, whether or not the caller let the failure through.
   */
  readonly unfit: WeakMap<pg.PoolClient, Error>;
  /** The transaction each checked-out connection is running, with its deadline: what its statements check. */
  readonly clocks: WeakMap<pg.PoolClient, TransactionClock>;
  /** The views of a connection, built the first time it is asked for and kept for the connection's life. */
  readonly viewsOf: (client: pg.PoolClient) => Views;
}

/** A connection checked out for some work, and where a failure of the connection goes meanwhile. */
interface Held {
  readonly client: pg.PoolClient;
  readonly broke: (error: Error) => void;
}

/** Work to run in a transaction: its deadline, and whether it gets one (a migration's does not). */
interface TransactionRequest<T> {
  readonly deadlineAt: number | undefined;
  readonly work: (client: Queries) => Promise<T>;
  readonly bounded: boolean;
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
  const pool = createPool(options, budget.sessionSettings);
  const { acquire, waitingCount } = createAcquirer(pool);
  const sessions = createSessions(budget, acquire, options.wrapQuery);
  // Drizzle outside a transaction and ping use the pool's own query: it runs on a connection checked out here too,
  // so that every statement is traced once and watched for an unfit session.
  pool.query = poolStatement(sessions) as unknown as typeof pool.query;
  const databaseOf = createDatabases();

  return {
    poolCounts: () => ({
      used: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      pending: pool.waitingCount + waitingCount(),
    }),
    db: drizzle({ client: pool }),
    transaction: (work, deadlineAt) =>
      withTransaction(sessions, {
        deadlineAt: budget.deadlineAt(deadlineAt),
        work: (client) => work(databaseOf(client)),
        bounded: true,
      }),
    onConnection: createConnectionHandout(sessions, databaseOf),
    migrationTarget: createMigrationTarget(sessions),
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

/** The pool, sized and bounded as `options` say, each new connection given `sessionSettings` first. */
function createPool(options: NodePostgresOptions, sessionSettings: string | undefined): pg.Pool {
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
  return pool;
}

/** The state shared by the steps below, empty until connections are checked out. */
function createSessions(budget: TimeBudget, acquire: Acquirer["acquire"], wrapQuery: WrapQuery | undefined): Sessions {
  // Traced, the query of each connection, through a view kept for the connection's life: every statement runs on a
  // connection checked out here, the pool's own query included, so each is traced once.
  const views = new WeakMap<pg.PoolClient, Views>();
  const sessions: Sessions = {
    budget,
    acquire,
    unfit: new WeakMap(),
    clocks: new WeakMap(),
    viewsOf: (client) => {
      let found = views.get(client);
      if (!found) {
        found = viewsFor(sessions, client, wrapQuery);
        views.set(client, found);
      }
      return found;
    },
  };
  return sessions;
}

/** Builds the views of `client`: its query (traced, if so) watched for unfit sessions, and that checked by its clock. */
function viewsFor(sessions: Sessions, client: pg.PoolClient, wrapQuery: WrapQuery | undefined): Views {
  const query: RunQuery = wrapQuery ? (wrapQuery(client.query.bind(client)) as RunQuery) : runner(client);
  const plain: Queries = { query: watched(sessions, client, query) as unknown as Queries["query"] };
  const run = runner(plain);
  const timed = async (...args: unknown[]) => {
    const clock = sessions.clocks.get(client);
    const settings = clock && sessions.budget.beforeStatement(clock);
    if (settings !== undefined) await run(settings);
    const own = clock && ownStatementTimeout(args[0]);
    // A statement that sets the transaction's limit itself (a hook function's, stores/hook-function-store.ts) is
    // what the connection applies from now on: a later statement must not raise it back to what the deadline left.
    if (clock && own !== undefined) clock.allowedMs = own;
    return run(...args);
  };
  return { plain, timed: { query: timed as unknown as Queries["query"] } };
}

/** The milliseconds of a `SET LOCAL statement_timeout = <ms>` statement; undefined for any other statement. */
function ownStatementTimeout(statement: unknown): number | undefined {
  const text = typeof statement === "string" ? statement : (statement as { text?: unknown } | null)?.text;
  const ms = typeof text === "string" ? /^SET LOCAL statement_timeout = (\d+)$/.exec(text)?.[1] : undefined;
  if (ms === undefined) return undefined;
  // 0 is no limit at all.
  return Number(ms) === 0 ? Number.POSITIVE_INFINITY : Number(ms);
}

/** `query`, noting the connection as unfit when a statement fails in a way that says so. */
function watched(sessions: Sessions, client: pg.PoolClient, query: RunQuery): RunQuery {
  return (...args) => {
    const result = query(...args);
    // A branch of its own, handled: the caller still gets the rejection.
    result.catch((error: unknown) => {
      if (unfitForWork(error)) sessions.unfit.set(client, error instanceof Error ? error : new Error(String(error)));
    });
    return result;
  };
}

/**
 * Runs `work` on a connection checked out for it, then gives it back; one that broke meanwhile, or whose session
 * turned out unfit for work (read-only, shutting down), is destroyed, so that the next one connects afresh.
 */
async function withConnection<T>(
  sessions: Sessions,
  deadlineAt: number | undefined,
  work: (held: Held) => Promise<T>,
): Promise<T> {
  const client = await sessions.acquire(deadlineAt);
  // While checked out, the client has no pool listener: a connection lost between two statements would emit
  // 'error' with nobody listening. Record it instead, so the client is destroyed rather than reused.
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on("error", onError);
  try {
    return await work({ client, broke: onError });
  } finally {
    client.off("error", onError);
    client.release(broken ?? sessions.unfit.get(client));
  }
}

/**
 * Runs `request.work` in a transaction on a connection already checked out. What it sets after BEGIN is decided now,
 * once the connection is there: waiting for one may have taken most of the time.
 */
async function inTransaction<T>(sessions: Sessions, held: Held, request: TransactionRequest<T>): Promise<T> {
  const { client, broke } = held;
  const { deadlineAt, work, bounded } = request;
  const { budget } = sessions;
  const { plain, timed } = sessions.viewsOf(client);
  const { settings, clock } = bounded ? budget.begin(deadlineAt) : { settings: budget.unbounded, clock: undefined };
  // Several statements in one simple query: one round trip.
  await plain.query(settings === undefined ? BEGIN : `${BEGIN}; ${settings}`);
  if (clock) sessions.clocks.set(client, clock);
  try {
    const result = await work(timed);
    // Not checked against the deadline: the work is done, and finishing it costs less than undoing it.
    const commit = await plain.query("COMMIT");
    // COMMIT of a transaction in which a statement failed answers ROLLBACK instead of an error; that happens
    // when `work` swallowed the failure, and it must not look like success.
    if (commit.command === "ROLLBACK") throw new Error("the transaction was rolled back: one of its statements failed");
    return result;
  } catch (error) {
    await plain.query("ROLLBACK").catch(broke);
    throw error;
  } finally {
    sessions.clocks.delete(client);
  }
}

/** Runs `request.work` in a transaction on a connection checked out for it. */
function withTransaction<T>(sessions: Sessions, request: TransactionRequest<T>): Promise<T> {
  return withConnection(sessions, request.deadlineAt, (held) => inTransaction(sessions, held, request));
}

/**
 * A statement outside a transaction, on `held.client`: under the connection's own timeouts when they end it by the
 * deadline (give or take a tenth of the bound), or else in a transaction of its own that sets what is left.
 * Decided as it starts: work that waited for a connection, or ran statements before, may have little time left.
 */
function autocommit(sessions: Sessions, held: Held, deadlineAt: number | undefined, args: unknown[]): Promise<unknown> {
  return deadlineAt === undefined || sessions.budget.sessionFits(deadlineAt)
    ? runner(sessions.viewsOf(held.client).plain)(...args)
    : inTransaction(sessions, held, { deadlineAt, work: (queries) => runner(queries)(...args), bounded: true });
}

/**
 * The pool's own query, which drizzle outside a transaction and ping use: work with no deadline of its own (the
 * outbox worker, maintenance), bounded by timeoutMs. The callback forms are not supported: nothing here uses them.
 */
function poolStatement(sessions: Sessions): RunQuery {
  return async (...args) => {
    const deadlineAt = sessions.budget.deadlineAt();
    return withConnection(sessions, deadlineAt, (held) => autocommit(sessions, held, deadlineAt, args));
  };
}

/**
 * One Database per pooled connection, kept for the connection's life: the statements prepared on it (see
 * stores/prepared.ts) are built once per connection, as PostgreSQL parses them once per connection.
 */
function createDatabases(): (client: Queries) => Database {
  const bound = new WeakMap<Queries, Database>();
  return (client) => {
    let db = bound.get(client);
    if (!db) {
      // drizzle only calls `query` of a client it is given (its own transaction() is not used).
      db = drizzle({ client: client as pg.PoolClient });
      bound.set(client, db);
    }
    return db;
  };
}

/** What a connection checked out by onConnection is doing now: the work's deadline, and where a failure goes. */
interface Working {
  readonly deadlineAt: number;
  readonly broke: (error: Error) => void;
}

/** The driver's onConnection: work holding one connection, each of its statements bounded by the work's deadline. */
function createConnectionHandout(
  sessions: Sessions,
  databaseOf: (client: Queries) => Database,
): Driver["onConnection"] {
  // A connection does one piece of work at a time, so its statements read that work here.
  const working = new WeakMap<pg.PoolClient, Working>();
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
      found = connectionFor(sessions, client, current, databaseOf);
      connections.set(client, found);
    }
    return found;
  };
  return (deadlineAt, work) =>
    withConnection(sessions, deadlineAt, async ({ client, broke }) => {
      working.set(client, { deadlineAt, broke });
      try {
        return await work(connectionOf(client));
      } finally {
        working.delete(client);
      }
    });
}

/** The Connection of `client`, whose statements run under the work `current` says it is doing. */
function connectionFor(
  sessions: Sessions,
  client: pg.PoolClient,
  current: () => Working,
  databaseOf: (client: Queries) => Database,
): Connection {
  const query: RunQuery = async (...args) => {
    const { deadlineAt, broke } = current();
    return autocommit(sessions, { client, broke }, deadlineAt, args);
  };
  return {
    // drizzle only calls `query` of a client it is given.
    db: drizzle({ client: { query } as unknown as pg.PoolClient }),
    atomic: (work) => {
      const { deadlineAt, broke } = current();
      return inTransaction(
        sessions,
        { client, broke },
        {
          deadlineAt,
          work: (queries) => work(databaseOf(queries)),
          bounded: true,
        },
      );
    },
  };
}

/** No statement timeout: a migration may rewrite a big table, and waits its turn on the migration lock. */
function createMigrationTarget(sessions: Sessions): MigrationTarget {
  return {
    transaction: (work) =>
      withTransaction(sessions, {
        deadlineAt: sessions.budget.deadlineAt(),
        work: (client) => work(migrationConnection(client)),
        bounded: false,
      }),
  };
}

/** A migration's view of its transaction's connection. */
function migrationConnection(client: Queries): MigrationConnection {
  return {
    query: async <Row>(text: string, params: readonly unknown[]) =>
      (await client.query(text, [...params])).rows as Row[],
    // Without parameters node-postgres uses the simple protocol, which accepts several statements.
    exec: async (script) => void (await client.query(script)),
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

  const watch = (listening: pg.Client) => {
    const broke = (error: Error) => {
      void discard(listening);
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
        next = await openListening(options.url, channel);
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

  watch(await openListening(options.url, channel));
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const last = client;
    client = undefined;
    await (last && discard(last));
  };
}

/** A new connection, outside the pool, listening on `channel`; closed again when it cannot be had. */
async function openListening(url: string, channel: string): Promise<pg.Client> {
  const next = new pg.Client({
    connectionString: url,
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
}

/**
 * Closes a LISTEN connection no longer wanted: nothing it still emits reaches the listener, and an 'error' while it
 * closes is heard (without a listener it would crash the process).
 */
function discard(listening: pg.Client): Promise<void> {
  listening.removeAllListeners();
  listening.on("error", () => undefined);
  return listening.end().catch(() => undefined);
}
