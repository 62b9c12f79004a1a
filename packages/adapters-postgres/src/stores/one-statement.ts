import { getTableColumns, type Placeholder, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgColumn, PgTable, PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Database } from "../database.ts";

// How a write of several rows is made one statement, and so one round trip with no BEGIN and COMMIT: the pattern
// every hot write follows (docs/architecture.md, "One-statement writes").
//
//   1. The guard: the first write, an INSERT or a conditional UPDATE, RETURNING the key of the row it wrote.
//   2. Every other row: INSERT … SELECT … FROM the guard, so it is written only if the guard wrote.
//   3. The statement selects the guard's keys: none means it wrote nothing.
//
// Each row is a slot (its table, and the prefix that names its parameters, `<prefix><column key>`); the statement is
// built and prepared once per connection from the slots, and each call fills the same slots' parameters.

/** The JavaScript names of a table's columns. */
export type ColumnKey<T extends PgTable> = keyof T["_"]["columns"] & string;

/** One row of a statement: its table, and the prefix of its parameters' names. */
export interface Slot<T extends PgTable = PgTable> {
  readonly table: T;
  readonly prefix: string;
}

export const slot = <T extends PgTable>(table: T, prefix = ""): Slot<T> => ({ table, prefix });

/** Slots of `table` for `count` rows, prefixed `<name>0_`, `<name>1_`, … */
export const slots = <T extends PgTable>(table: T, name: string, count: number): Slot<T>[] =>
  Array.from({ length: count }, (_, index) => slot(table, `${name}${index}_`));

/** The parameter standing for one column of the slot's row. */
export function param<T extends PgTable>(row: Slot<T>, key: ColumnKey<T>): Placeholder {
  return sql.placeholder(`${row.prefix}${key}`);
}

/**
 * SET of these columns, each to its parameter. Each is wrapped in SQL so that drizzle leaves it alone: it would
 * encode it for the column, and its encoders fail on null (a timestamp's calls toISOString). StatementParameters encodes
 * the values instead.
 */
export function setParams<T extends PgTable>(row: Slot<T>, keys: readonly ColumnKey<T>[]): PgUpdateSetSource<T> {
  // The keys are the table's own, which is all the set source's type asks; it cannot follow Object.fromEntries.
  return Object.fromEntries(keys.map((key) => [key, sql`${param(row, key)}`])) as PgUpdateSetSource<T>;
}

/** Every column an INSERT sets: all but those the database generates. */
function insertable(table: PgTable): [string, PgColumn][] {
  return Object.entries(getTableColumns(table)).filter(([, column]) => !column.generatedIdentity && !column.generated);
}

/** The keys of the columns an INSERT into the table sets: what a row must give a value (or null) for. */
export function insertableKeys<T extends PgTable>(table: T): ColumnKey<T>[] {
  return insertable(table).map(([key]) => key as ColumnKey<T>);
}

/** The column list and one row of parameters per slot, each cast to its column's type. */
function insertParts(rows: readonly Slot[]): { table: PgTable; columns: SQL; values: SQL[] } {
  const [first] = rows;
  if (!first || rows.some((row) => row.table !== first.table))
    throw new Error("one table per insert, and a row at least");
  const columns = insertable(first.table);
  const values = rows.map(
    (row) =>
      sql`${sql.join(
        columns.map(([key, column]) => sql`${sql.placeholder(`${row.prefix}${key}`)}::${sql.raw(column.getSQLType())}`),
        sql`, `,
      )}`,
  );
  return {
    table: first.table,
    columns: sql.join(
      columns.map(([, column]) => sql.identifier(column.name)),
      sql`, `,
    ),
    values,
  };
}

/** INSERT of the slots' rows (all of one table), every column a parameter; `returning` as written after it. */
export function insertRows(rows: readonly Slot[], returning?: SQL): SQL {
  const { table, columns, values } = insertParts(rows);
  const tuples = sql.join(
    values.map((value) => sql`(${value})`),
    sql`, `,
  );
  return sql`insert into ${table} (${columns}) values ${tuples}${returning ? sql` returning ${returning}` : sql``}`;
}

/** INSERT … SELECT of the slots' rows (all of one table), written only when `guard` has a row. */
export function insertRowsWhere(rows: readonly Slot[], guard: SQLWrapper): SQL {
  const { table, columns, values } = insertParts(rows);
  const selects = sql.join(
    values.map((value) => sql`select ${value} from ${guard}`),
    sql` union all `,
  );
  return sql`insert into ${table} (${columns}) ${selects}`;
}

/**
 * The statement: `guard`, which must return the written rows' `id`, then each of `writes` (given the guard, to
 * insert only where it wrote), selecting the guard's ids. Call `.prepare(name)` on it.
 */
export function oneStatement(db: Database, guard: SQL, writes: (guard: SQLWrapper) => readonly SQL[]) {
  const guarded = db.$with("guard", { id: sql<string>`id`.as("id") }).as(guard);
  const parts = writes(guarded).map((write, index) => db.$with(`write${index}`, {}).as(write));
  return db
    .with(guarded, ...parts)
    .select({ id: guarded.id })
    .from(guarded);
}

/**
 * The named parameters of one statement, gathered in one object as rows are added: the hot writes name some
 * thirty, from several rows, and building an object per row to spread into the next cost them more than the
 * encoding. Values are encoded as drizzle sends literal values for their columns (dates as ISO strings, json as
 * text).
 */
export class StatementParameters {
  readonly values: Record<string, unknown> = {};

  /** The row's values for `keys` (all of its own by default), under the slot's names. */
  row<T extends PgTable>(
    slot: Slot<T>,
    row: Readonly<Partial<T["$inferInsert"]>>,
    keys: readonly ColumnKey<T>[] = Object.keys(row) as ColumnKey<T>[],
  ): this {
    const columns = getTableColumns(slot.table) as Record<string, PgColumn>;
    const values = row as Readonly<Record<string, unknown>>;
    for (const key of keys) {
      const value = values[key];
      const column = columns[key];
      this.values[`${slot.prefix}${key}`] =
        value === null || value === undefined || column === undefined
          ? (value ?? null)
          : column.mapToDriverValue(value);
    }
    return this;
  }

  /** Rows of one table, each under the names of its slot. */
  rows<T extends PgTable>(slots: readonly Slot<T>[], rows: readonly Readonly<Partial<T["$inferInsert"]>>[]): this {
    for (const [index, row] of rows.entries()) this.row(slots[index]!, row);
    return this;
  }

  /** One value as it is, for a parameter that is no column of a written row (a guard's condition). */
  value(name: string, value: unknown): this {
    this.values[name] = value;
    return this;
  }
}
