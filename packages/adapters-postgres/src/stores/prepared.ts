import { sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Database } from "../database.ts";
import { insertableKeys, insertRows, oneStatement, StatementParameters, slot } from "./one-statement.ts";

const built = new WeakMap<Database, Map<string, unknown>>();

/**
 * A statement of the hot paths, built by drizzle once per `db` (the pool, or one pooled connection: transactions
 * reuse their connection's Database) and, under its name, parsed and planned by PostgreSQL once per connection.
 * Building a query costs drizzle more CPU than PostgreSQL spends answering a lookup by key, so these are not
 * rebuilt per request. `name` must be unique per namespace and per statement text.
 */
export function prepared<T>(db: Database, namespace: string, name: string, build: (statementName: string) => T): T {
  let statements = built.get(db);
  if (!statements) {
    statements = new Map();
    built.set(db, statements);
  }
  let statement = statements.get(name) as T | undefined;
  if (statement === undefined) {
    statement = build(`latchkey_${namespace}${name}`);
    statements.set(name, statement);
  }
  return statement;
}

/** One row to insert into `table`, by the statement prepared under `name` in `namespace` (see prepared). */
export interface InsertOne<T extends PgTable> {
  readonly namespace: string;
  readonly name: string;
  readonly table: T;
  readonly row: Readonly<Partial<T["$inferInsert"]>>;
}

/** Inserts one row, every column a parameter of a prepared statement (one-statement.ts, with no other write). */
export async function insertOne<T extends PgTable>(db: Database, insert: InsertOne<T>): Promise<void> {
  const { namespace, name, table, row } = insert;
  const { keys, statement } = prepared(db, namespace, name, (statementName) => ({
    keys: insertableKeys(table),
    statement: oneStatement(db, insertRows([slot(table)], sql`id`), () => []).prepare(statementName),
  }));
  await statement.execute(new StatementParameters().row(slot(table), row, keys).values);
}
