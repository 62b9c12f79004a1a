import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { MigrationTarget } from "./migrations/migrate.ts";

/** A drizzle database or transaction, whichever the driver (node-postgres or PGlite). */
export type Database = PgDatabase<PgQueryResultHKT>;

/**
 * Runs `work` in one transaction on one connection: commits when it resolves, rolls back when it throws. With
 * `deadlineAt` (ms since the epoch; a request's), its statements get what is left of it (drivers/time-budget.ts).
 */
export type RunInTransaction = <T>(work: (db: Database) => Promise<T>, deadlineAt?: number) => Promise<T>;

/** One connection held for a piece of work outside a transaction, each statement committing on its own. */
export interface Connection {
  readonly db: Database;
  /** Runs several statements as one transaction on this connection (see stores/atomic.ts). */
  readonly atomic: <T>(work: (db: Database) => Promise<T>) => Promise<T>;
}

/** A connection pool's counts at one moment. */
export interface PoolCounts {
  /** Connections checked out, running a statement or holding a transaction. */
  readonly used: number;
  /** Connections open and waiting in the pool. */
  readonly idle: number;
  /** Requests for a connection waiting for one to be free. */
  readonly pending: number;
}

/** Hears when a connection held for the server's life breaks and when it is back: once each per outage. */
export interface ConnectionEvents {
  /** The connection broke or a reconnection failed; not told again until `restored`. */
  lost(error: Error): void;
  /** Connected again after `lost`. */
  restored(): void;
}

/** What a driver gives the stores, the migration runner and the host. */
export interface Driver {
  /** The pool's counts; absent where there is no pool (PGlite). */
  readonly poolCounts?: (() => PoolCounts) | undefined;
  /** Statements outside a transaction: each one commits on its own. */
  readonly db: Database;
  readonly transaction: RunInTransaction;
  /**
   * Runs `work` on a connection checked out for it by `deadlineAt` and held until `work` settles, each of its
   * statements given what is left of the deadline: how the stores of one request run (stores/scoped-stores.ts).
   * The same Connection comes back for the same pooled connection, so what is built per connection is kept.
   */
  onConnection<T>(deadlineAt: number, work: (connection: Connection) => Promise<T>): Promise<T>;
  readonly migrationTarget: MigrationTarget;
  ping(): Promise<void>;
  /**
   * Resolves when the database takes writes, as a connection opened now finds it, within `timeoutMs`; rejects when
   * it cannot be reached or is read-only. Not on the pool's connections, which a lock or a busy pool may hold up.
   */
  checkWritable(timeoutMs: number): Promise<void>;
  /**
   * Calls `onNotify` for each NOTIFY on `channel` (a lower-case identifier) until the returned stop function is
   * called. Notifications can be missed while a connection is re-established; `onNotify` is then called once.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /** Idempotent. */
  close(): Promise<void>;
}

/** Wraps `close` so that a second call waits for the first instead of failing. */
export function closeOnce(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}
