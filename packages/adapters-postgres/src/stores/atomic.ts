import type { Database } from "../database.ts";

/**
 * Runs several statements as one unit: inside a transaction, on it; outside, in a transaction of their own, so
 * a store method outside `tx.run` is still all or nothing.
 */
export type Atomic = <T>(work: (db: Database) => Promise<T>) => Promise<T>;
