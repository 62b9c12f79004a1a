import { type Factor, type Identity, oldestFirst, type User } from "@latchkey/domain";
import { and, type Column, eq, getTableName, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Database } from "../database.ts";
import { type FactorJson, fromFactorJson } from "../rows/factor-row.ts";
import { fromIdentityJson, type IdentityJson } from "../rows/identity-row.ts";
import { fromUserJson, type UserJson } from "../rows/user-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import { prepared } from "./prepared.ts";

/**
 * The rows of `table` whose `userId` column names the selected user, as one json array in no particular order (see
 * toUser): no second query, no row fan-out.
 *
 * Not `json_agg(… ORDER BY …)`: an ordered aggregate sets up a sort for each execution, even of no rows, and that
 * set-up cost PostgreSQL more than the rest of `GET /user`'s statement (bench/README.md). A user has a handful of
 * identities and factors; ordering them here costs next to nothing.
 */
function rowsOfUser<T>(schema: Schema, table: PgTable, userIdColumn: Column): SQL<T[]> {
  // Names spelled out: drizzle leaves columns unqualified in a single-table select, where `user_id = id` would
  // compare the row with itself.
  const r = sql.identifier("r");
  const userId = sql`${sql.identifier(getTableName(schema.users))}.${sql.identifier(schema.users.id.name)}`;
  return sql<T[]>`coalesce((
    select json_agg(${r}) from ${table} as ${r} where ${r}.${sql.identifier(userIdColumn.name)} = ${userId}
  ), '[]'::json)`;
}

/** The identities of the selected user as one json array, in no particular order. */
function identitiesOfUser(schema: Schema): SQL<IdentityJson[]> {
  return rowsOfUser(schema, schema.identities, schema.identities.userId);
}

/** The factors of the selected user as one json array, in no particular order: every user read carries them. */
function factorsOfUser(schema: Schema): SQL<FactorJson[]> {
  return rowsOfUser(schema, schema.mfaFactors, schema.mfaFactors.userId);
}

/**
 * The whole row of `table`, as named in the query's FROM, as one json value (null for the missing side of an outer
 * join). The hot reads select rows this way: pg parses the description of every result's columns again on each
 * execution and drizzle maps them one by one, which for a user and its session cost more than the lookup itself.
 */
export function rowJson<T>(table: PgTable): SQL<T> {
  return sql<T>`row_to_json(${sql.identifier(getTableName(table))})`;
}

/** The user row together with its identities and factors: the columns every user query selects. */
export function userColumns(schema: Schema) {
  return {
    user: rowJson<UserJson>(schema.users),
    identities: identitiesOfUser(schema),
    factors: factorsOfUser(schema),
  };
}

/** What a query that selected userColumns answers for each user. */
export interface UserColumnsJson {
  readonly user: UserJson;
  readonly identities: IdentityJson[];
  readonly factors: FactorJson[];
}

/** Maps one result of a query that selected userColumns. */
export function toUser(row: UserColumnsJson): User {
  const identities: Identity[] = oldestFirst(row.identities.map(fromIdentityJson));
  const factors: Factor[] = oldestFirst(row.factors.map(fromFactorJson));
  return fromUserJson(row.user, identities, factors);
}

/**
 * The user whose `key` column holds `value`, with its identities and factors, in one prepared query. By an address,
 * never an SSO user: its address is its own only within its provider. The condition is a literal, as in the email's
 * partial unique index, so that the planner sees that index answers it.
 */
export async function selectUserBy(
  db: Database,
  schema: Schema,
  key: "id" | "email" | "phone",
  value: string,
): Promise<User | null> {
  const { users } = schema;
  const noSsoUser = key === "id" ? undefined : sql`${users.isSsoUser} = false`;
  const statement = prepared(db, schema.namespace, `user_by_${key}`, (name) =>
    db
      .select(userColumns(schema))
      .from(users)
      .where(and(eq(users[key], sql.placeholder("value")), noSsoUser))
      .limit(1)
      .prepare(name),
  );
  const [row] = await statement.execute({ value });
  return row ? toUser(row) : null;
}
