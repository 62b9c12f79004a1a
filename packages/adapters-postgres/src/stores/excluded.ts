import { type Column, type SQL, sql } from "drizzle-orm";

/** `excluded.<column>`: in ON CONFLICT DO UPDATE, the value the refused insert proposed. */
export function excluded<C extends Column>(column: C): SQL<C["_"]["data"]> {
  return sql`excluded.${sql.identifier(column.name)}`;
}
