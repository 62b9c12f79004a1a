import { getTableColumns, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Database } from "../database.ts";

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

/**
 * One placeholder per key, named after it: values for insert and set with every column a parameter. Each is
 * wrapped in SQL so that drizzle leaves its value alone: it would encode it for the column, and its encoders fail
 * on null (a timestamp's calls toISOString). StatementParameters encodes the values instead.
 */
export function placeholders<K extends string>(keys: readonly K[], prefix = ""): Record<K, SQL> {
  return Object.fromEntries(keys.map((key) => [key, sql`${sql.placeholder(`${prefix}${key}`)}`])) as Record<K, SQL>;
}

/**
 * The named parameters of one prepared statement, gathered in one object as they are added: the hot writes name
 * some thirty, from several rows, and building an object per row to spread into the next cost them more than
 * the encoding. Values are encoded as drizzle sends literal values for their columns (dates as ISO strings, json
 * as text).
 */
export class StatementParameters {
  readonly values: Record<string, unknown> = {};

  /** The row's values for `keys` (all of its own by default), each named with `prefix` before its key. */
  columns(
    table: PgTable,
    row: Readonly<Record<string, unknown>>,
    prefix = "",
    keys: readonly string[] = Object.keys(row),
  ): this {
    const columns = getTableColumns(table) as Record<string, { mapToDriverValue(value: unknown): unknown }>;
    for (const key of keys) {
      const value = row[key];
      const column = columns[key];
      this.values[`${prefix}${key}`] =
        value === null || value === undefined || column === undefined
          ? (value ?? null)
          : column.mapToDriverValue(value);
    }
    return this;
  }

  /** One value as it is, for a parameter that is no column of an inserted or updated row (a key, a guard). */
  value(name: string, value: unknown): this {
    this.values[name] = value;
    return this;
  }
}

/** Every column an INSERT may set: all but those the database generates. */
export function insertableKeys(table: PgTable): string[] {
  return Object.entries(getTableColumns(table))
    .filter(([, column]) => !column.generatedIdentity && !column.generated)
    .map(([key]) => key);
}

/** INSERT into `table` of one row per prefix, every insertable column a placeholder named after it (behind the prefix). */
export function insertWithPlaceholders(db: Database, table: PgTable, ...prefixes: string[]) {
  const keys = insertableKeys(table);
  const rows = (prefixes.length === 0 ? [""] : prefixes).map((prefix) => placeholders(keys, prefix));
  return db.insert(table).values(rows as never);
}

/**
 * INSERT … SELECT of the rows of insertWithPlaceholders, which writes them only when `source` (a CTE of one row
 * or none) has a row: only if an earlier part of the statement wrote. Placeholders in a select list have no
 * column to take their type from, so each is cast to its column's.
 */
export function insertWhere(table: PgTable, source: SQLWrapper, ...prefixes: string[]): SQL {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const keys = insertableKeys(table);
  const row = (prefix: string) =>
    sql`select ${sql.join(
      keys.map((key) => sql`${sql.placeholder(`${prefix}${key}`)}::${sql.raw(columns[key]!.getSQLType())}`),
      sql`, `,
    )} from ${source}`;
  const rows = sql.join((prefixes.length === 0 ? [""] : prefixes).map(row), sql` union all `);
  return sql`insert into ${table} (${sql.join(
    keys.map((key) => sql.identifier(columns[key]!.name)),
    sql`, `,
  )}) ${rows}`;
}

/** Inserts one row, every column a parameter of a prepared statement. */
export async function insertOne(
  db: Database,
  namespace: string,
  name: string,
  table: PgTable,
  row: Readonly<Record<string, unknown>>,
): Promise<void> {
  const { keys, statement } = prepared(db, namespace, name, (statementName) => {
    const keys = insertableKeys(table);
    return { keys, statement: insertWithPlaceholders(db, table).prepare(statementName) };
  });
  await statement.execute(new StatementParameters().columns(table, row, "", keys).values);
}
