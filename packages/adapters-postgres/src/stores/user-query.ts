import type { Identity, User } from "@latchkey/domain";
import { getTableName, sql, type Column, type SQL } from "drizzle-orm";
import type { Database } from "../database.ts";
import { fromIdentityJson, type IdentityJson } from "../rows/identity-row.ts";
import { fromUserRow, type UserRow } from "../rows/user-row.ts";
import type { Schema } from "../schema/create-schema.ts";

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

/** The user matching `where`, with its identities, in one query. */
export async function selectUser(db: Database, schema: Schema, where: SQL): Promise<User | null> {
  const [row] = await db.select(userColumns(schema)).from(schema.users).where(where).limit(1);
  return row ? toUser(row) : null;
}
