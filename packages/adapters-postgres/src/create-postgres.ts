import type { PGlite } from "@electric-sql/pglite";
import type { AccountImportTarget, Stores, Transactor } from "@latchkey/domain";
import type { Tracer } from "@opentelemetry/api";
import type { ConnectionEvents, Database, Driver, PoolCounts } from "./database.ts";
import type { TimeBudgetOptions } from "./drivers/time-budget.ts";
import { createAccountImport } from "./import/account-import.ts";
import { migrate } from "./migrations/migrate.ts";
import { createSchema, type Schema } from "./schema/create-schema.ts";
import { createPostgresStores, type ScopedStores } from "./stores/create-stores.ts";
import { outboxChannel } from "./stores/outbox-store.ts";

export interface PostgresOptions {
  /** A PostgreSQL connection string. Without one, an embedded PGlite. */
  readonly url?: string;
  /**
   * Where the embedded PGlite keeps its files; in memory when absent. Unused with `url`. Locked while open: opening
   * it again, here or in another process, rejects with EmbeddedDatabaseInUseError.
   */
  readonly embeddedDataDir?: string;
  /**
   * An open PGlite to work on instead of opening one, shared with others in this process, each under its own
   * namespace: how tests run several server instances on one embedded database. `close()` leaves it open. Unused
   * with `url`; `embeddedDataDir` is then ignored.
   */
  readonly sharedEmbedded?: PGlite;
  /**
   * Most connections the pool opens at once; 0 for no limit of its own (PostgreSQL's then: work refused a connection
   * for a full server waits for one of the pool's, within its time). Unused by PGlite, which is one connection.
   */
  readonly maxPoolSize: number;
  /** DB_NAMESPACE: prefix of every table, index and constraint name; empty or a plain SQL identifier. */
  readonly namespace: string;
  /** Hears about pooled connections that broke while idle (ignored without it); the pool drops them and reconnects. */
  readonly onPoolError?: (error: Error) => void;
  /**
   * Hears when the connection that LISTENs for outbox messages (onOutboxMessage) breaks and when it listens again,
   * once each per outage however many reconnections fail (ignored without it). PGlite has no such connection.
   */
  readonly listenConnection?: ConnectionEvents;
  /**
   * How long the database may take (PostgreSQL only; PGlite has no such limits): `timeoutMs` bounds every statement
   * and lock wait (the connections' statement_timeout and lock_timeout) and every wait for a connection; work with
   * a deadline (`within`) gets what is left of it instead. Past them PostgreSQL cancels the statement, its
   * transaction rolls back, and the stores reject with AuthError `request_timeout`. No limit when absent.
   */
  readonly timeouts?: TimeBudgetOptions | undefined;
  /**
   * Makes each statement on PostgreSQL run within a traced operation a child span (drivers/query-spans.ts). Without
   * it nothing of the kind is loaded. PGlite's statements are not traced.
   */
  readonly tracer?: Tracer | undefined;
}

export interface Postgres {
  /** For work with no deadline of its own (the outbox worker, maintenance): bounded by `timeouts.timeoutMs`. */
  readonly stores: Stores;
  readonly tx: Transactor;
  /**
   * The stores and transactions of work that must end by `deadlineAt` (ms since the epoch; a request's): each
   * statement gets what is left of it, as `timeouts` says. PGlite has no time limits, and ignores it.
   */
  within(deadlineAt: number): ScopedStores;
  readonly schema: Schema;
  /** drizzle, outside any transaction: for maintenance and tests, not for what the stores already do. */
  readonly db: Database;
  /** Applies pending migrations and returns their versions; concurrent callers apply each one once. */
  migrate(): Promise<string[]>;
  /** Writes accounts brought from another system (`latchkey import`), a batch per transaction. */
  readonly accountImport: AccountImportTarget;
  /** The connection pool's counts, for the metrics; absent with PGlite, which has no pool. */
  readonly poolCounts: (() => PoolCounts) | undefined;
  /** Resolves when the database answers a query. */
  ping(): Promise<void>;
  /**
   * For readiness: resolves when the database takes writes, as a connection opened now finds it (on PostgreSQL, a
   * connection of its own, closed after; `SHOW transaction_read_only`), within `timeoutMs`; rejects when it cannot
   * be reached or is read-only (a standby, default_transaction_read_only). The embedded PGlite always takes them.
   */
  checkWritable(timeoutMs: number): Promise<void>;
  /**
   * Calls `onMessage` whenever a message is queued in this namespace's outbox, by any instance, once its
   * transaction commits (and once after a lost connection is re-established). Resolves to a stop function.
   */
  onOutboxMessage(onMessage: () => void): Promise<() => Promise<void>>;
  /** Ends the pool or closes PGlite; idempotent. */
  close(): Promise<void>;
}

/**
 * Connects to PostgreSQL through a node-postgres pool when `url` is given, else starts an embedded PGlite.
 * Throws on an invalid namespace or pool size before connecting. Does not migrate: call `migrate()`.
 */
export async function createPostgres(options: PostgresOptions): Promise<Postgres> {
  const schema = createSchema(options.namespace);
  if (!Number.isInteger(options.maxPoolSize) || options.maxPoolSize < 0) {
    throw new Error(`maxPoolSize must be a whole number, 0 for no limit: ${options.maxPoolSize}`);
  }
  const driver = await openDriver(options);
  return {
    ...createPostgresStores(driver, schema),
    schema,
    db: driver.db,
    migrate: () => migrate(driver.migrationTarget, schema.namespace),
    accountImport: createAccountImport(driver.db, driver.transaction, schema),
    poolCounts: driver.poolCounts,
    ping: driver.ping,
    checkWritable: driver.checkWritable,
    onOutboxMessage: (onMessage) => driver.listen(outboxChannel(schema.namespace), onMessage),
    close: driver.close,
  };
}

// Each driver is loaded only when chosen: a server on PostgreSQL never loads the WASM build, and the reverse.
async function openDriver(options: PostgresOptions): Promise<Driver> {
  if (options.url !== undefined) {
    const { createNodePostgresDriver } = await import("./drivers/node-postgres.ts");
    const spans = options.tracer ? await import("./drivers/query-spans.ts") : undefined;
    return createNodePostgresDriver({
      url: options.url,
      maxPoolSize: options.maxPoolSize,
      onPoolError: options.onPoolError,
      listenConnection: options.listenConnection,
      timeouts: options.timeouts,
      wrapQuery: options.tracer && spans ? spans.querySpans(options.tracer, options.url) : undefined,
    });
  }
  const { createPgliteDriver } = await import("./drivers/pglite.ts");
  return createPgliteDriver({ dataDir: options.embeddedDataDir, shared: options.sharedEmbedded });
}
