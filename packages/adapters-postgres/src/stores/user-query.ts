import type { Identity, User } from "@latchkey/domain";
import { eq, getTableName, sql, type Column, type SQL } from "drizzle-orm";
import type { Database } from "../database.ts";
import { fromIdentityJson, type IdentityJson } from "../rows/identity-row.ts";
import { fromUserRow, type UserRow } from "../rows/user-row.ts";
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

/** The user row together with its identities: the columns every user query selects. */
export function userColumns(schema: Schema) {
  return { user: schema.users, identities: identitiesOfUser(schema) };
}

/** Maps one result of a query that selected userColumns. */
export function toUser(row: { user: UserRow; identities: IdentityJson[] }): User {
  const identities: Identity[] = row.identities.map(fromIdentityJson);
  return fromUserRow(row.user, identities);
}

/** The user whose `key` column holds `value`, with its identities, in one prepared query. */
export async function selectUserBy(db: Database, schema: Schema, key: "id" | "email" | "phone", value: string): Promise<User | null> {
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
