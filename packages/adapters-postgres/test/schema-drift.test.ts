import { Column, getTableName, type SQL, sql } from "drizzle-orm";
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { createSchema, type Database, MAX_NAMESPACE_LENGTH, tablesOf } from "../src/index.ts";
import { backends, openedFor, queryRows } from "./support.ts";

// pg_constraint.confdeltype for each ON DELETE action drizzle can declare.
const ON_DELETE: Record<string, string> = {
  cascade: "c",
  restrict: "r",
  "no action": "a",
  "set null": "n",
  "set default": "d",
};

/** The columns a check's condition names, in the order it names them first: what the catalog lists as its conkey. */
const columnsOfCheck = (condition: SQL) => [
  ...new Set(condition.queryChunks.filter((chunk) => chunk instanceof Column).map((column) => column.name)),
];

/** What the drizzle schema declares for a table, in the shape the catalog query below returns. */
function declared(table: PgTable) {
  const config = getTableConfig(table);
  const names = (columns: readonly { name: string }[]) => columns.map((column) => column.name).join(",");
  return {
    columns: config.columns.map((column) => ({
      name: column.name,
      type: column.getSQLType(),
      notNull: column.notNull,
    })),
    constraints: [
      ...config.primaryKeys.map((pk) => ({
        name: pk.getName(),
        type: "p",
        columns: names(pk.columns),
        references: null,
        onDelete: null,
      })),
      ...config.uniqueConstraints.map((unique) => ({
        name: unique.getName() ?? "",
        type: "u",
        columns: names(unique.columns),
        references: null,
        onDelete: null,
      })),
      ...config.checks.map((check) => ({
        name: check.name,
        type: "c",
        columns: columnsOfCheck(check.value).join(","),
        references: null,
        onDelete: null,
      })),
      ...config.foreignKeys.map((fk) => {
        const reference = fk.reference();
        return {
          name: fk.getName(),
          type: "f",
          columns: names(reference.columns),
          references: `${getTableName(reference.foreignTable)}(${names(reference.foreignColumns)})`,
          onDelete: ON_DELETE[fk.onDelete ?? "no action"] ?? null,
        };
      }),
    ].sort((a, b) => a.name.localeCompare(b.name)),
    indexes: config.indexes
      .map((index) => ({
        name: index.config.name ?? "",
        unique: index.config.unique,
        columns: index.config.columns
          .map((column) => ("name" in column && typeof column.name === "string" ? column.name : "<expression>"))
          .join(","),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/** What the database holds for a table, after the migrations. */
async function inCatalog(db: Database, name: string) {
  const table = sql`(select oid from pg_class where relname = ${name} and relnamespace = current_schema()::regnamespace)`;
  const columns = await queryRows<{ name: string; type: string; notNull: boolean }>(
    db,
    sql`select attname::text as "name", format_type(atttypid, atttypmod) as "type", attnotnull as "notNull"
        from pg_attribute where attrelid = ${table} and attnum > 0 and not attisdropped order by attnum`,
  );
  const constraints = await queryRows<{
    name: string;
    type: string;
    columns: string;
    references: string | null;
    onDelete: string | null;
  }>(
    db,
    sql`select c.conname::text as "name", c.contype::text as "type",
          (select string_agg(a.attname, ',' order by k.n) from unnest(c.conkey) with ordinality k(attnum, n)
            join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum) as "columns",
          case when c.contype = 'f' then
            (select relname from pg_class where oid = c.confrelid) || '(' ||
            (select string_agg(a.attname, ',' order by k.n) from unnest(c.confkey) with ordinality k(attnum, n)
              join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.attnum) || ')'
          end as "references",
          case when c.contype = 'f' then c.confdeltype::text end as "onDelete"
        from pg_constraint c
        -- PostgreSQL 18 (PGlite) also lists NOT NULL as constraints; the columns' notNull covers them.
        where c.conrelid = ${table} and c.contype <> 'n' order by 1`,
  );
  // Indexes that back no constraint of the table: the ones declared with index().
  const indexes = await queryRows<{ name: string; unique: boolean; columns: string }>(
    db,
    sql`select i.relname::text as "name", x.indisunique as "unique",
          (select string_agg(coalesce(a.attname, '<expression>'), ',' order by k.n)
            from unnest(x.indkey::int2[]) with ordinality k(attnum, n)
            left join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum) as "columns"
        from pg_index x join pg_class i on i.oid = x.indexrelid
        where x.indrelid = ${table}
          and not exists (select 1 from pg_constraint c where c.conrelid = x.indrelid and c.conindid = x.indexrelid)
        order by 1`,
  );
  return { columns, constraints, indexes };
}

describe.each(backends)("$name schema and migrations", (backend) => {
  const database = openedFor(backend);

  it("agree on every table, column, type, constraint and index", async () => {
    const postgres = database();
    const tables = await queryRows<{ name: string }>(
      postgres.db,
      sql`select relname::text as "name" from pg_class
          where relnamespace = current_schema()::regnamespace and relkind = 'r' and starts_with(relname, ${postgres.schema.namespace})
          order by 1`,
    );
    const declaredTables = tablesOf(postgres.schema).map((table) => getTableName(table));
    expect(tables.map((table) => table.name)).toEqual([...declaredTables].sort());
    for (const table of tablesOf(postgres.schema)) {
      expect({ table: getTableName(table), ...(await inCatalog(postgres.db, getTableName(table))) }).toEqual({
        table: getTableName(table),
        ...declared(table),
      });
    }
  });
});

describe("names", () => {
  it("fit PostgreSQL's 63 bytes with the longest namespace allowed, which is enforced", () => {
    const schema = createSchema("n".repeat(MAX_NAMESPACE_LENGTH));
    const names = tablesOf(schema).flatMap((table) => {
      const config = getTableConfig(table);
      return [
        config.name,
        ...config.primaryKeys.map((pk) => pk.getName()),
        ...config.uniqueConstraints.map((unique) => unique.getName() ?? ""),
        ...config.checks.map((check) => check.name),
        ...config.foreignKeys.map((fk) => fk.getName()),
        ...config.indexes.map((index) => index.config.name ?? ""),
      ];
    });
    expect(names.filter((name) => Buffer.byteLength(name) > 63)).toEqual([]);
    expect(Math.max(...names.map((name) => name.length))).toBe(63);
    expect(() => createSchema("n".repeat(MAX_NAMESPACE_LENGTH + 1))).toThrow(/at most/);
  });
});
