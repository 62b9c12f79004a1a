import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

/**
 * `value` contains `text`, ignoring case. `%`, `_` and `\` in `text` are escaped, so a search for "50%" or
 * "first_last" means those characters and no wildcard; the pattern is a parameter, never spliced into the SQL.
 */
export function containsText(value: SQLWrapper, text: string): SQL {
  const pattern = `%${text.replace(/[\\%_]/g, "\\$&")}%`;
  return sql`${value} ilike ${pattern} escape '\\'`;
}
