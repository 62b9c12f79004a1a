import type { Identity, User } from "@latchkey/domain";
import { type Column, eq, getTableName, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Database } from "../database.ts";
import { fromIdentityJson, type IdentityJson } from "../rows/identity-row.ts";
import { fromUserJson, fromUserRow, type UserJson } from "../rows/user-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import { prepared } from "./prepared.ts";

/** The identities of the selected user as one json array, oldest first: no second query, no row fan-out. */
export function identitiesOfUser(schema: Schema): SQL<IdentityJson[]> {
  const { identities, users } = schema;
  // Names spelled out: drizzle leaves columns unqualified in a single-table select, where `user_id = id` would
  // compare the identity with itself.
  const i = sql.identifier("i");
  const column = (c: Column) => sql`${i}.${sql.identifier(c.name)}`;
  const userId = sql`${sql.identifier(getTableName(users))}.${sql.identifier(users.id.name)}`;
  return sql<IdentityJson[]>`coalesce((
    select json_agg(${i} order by ${column(identities.createdAt)}, ${column(identities.id)})
    from ${identities} as ${i} where ${column(identities.userId)} = ${userId}
  ), '[]'::json)`;
}

/**
 * The whole row of `table`, as named in the query's FROM, as one json value (null for the missing side of an outer
 * join). The hot reads select rows this way: pg parses the description of every result's columns again on each
 * execution and drizzle maps them one by one, which for a user and its session cost more than the lookup itself.
 */
export function rowJson<T>(table: PgTable): SQL<T> {
  return sql<T>`row_to_json(${sql.identifier(getTableName(table))})`;
}

/** The user row together with its identities: the columns every user query selects. */
export function userColumns(schema: Schema) {
  return { user: rowJson<UserJson>(schema.users), identities: identitiesOfUser(schema) };
}

/** Maps one result of a query that selected userColumns. */
export function toUser(row: { user: UserJson; identities: IdentityJson[] }): User {
  const identities: Identity[] = row.identities.map(fromIdentityJson);
  return fromUserRow(fromUserJson(row.user), identities);
}

/** The user whose `key` column holds `value`, with its identities, in one prepared query. */
export async function selectUserBy(
  db: Database,
  schema: Schema,
  key: "id" | "email" | "phone",
  value: string,
): Promise<User | null> {
  const statement = prepared(db, schema.namespace, `user_by_${key}`, (name) =>
    db
      .select(userColumns(schema))
      .from(schema.users)
      .where(eq(schema.users[key], sql.placeholder("value")))
      .limit(1)
      .prepare(name),
  );
  const [row] = await statement.execute({ value });
  return row ? toUser(row) : null;
}
