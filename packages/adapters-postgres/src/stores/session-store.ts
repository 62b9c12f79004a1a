import type { SessionStore } from "@latchkey/domain";
import { and, eq, gt, isNull, ne, or, sql } from "drizzle-orm";
import type { Database } from "../database.ts";
import { toRefreshTokenRow } from "../rows/refresh-token-row.ts";
import { type SessionRow, toSessionRow } from "../rows/session-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import { encodeColumns, insertableKeys, insertOne, insertWithPlaceholders, placeholders, prepared } from "./prepared.ts";

const UPDATED_COLUMNS = [
  "refreshTokenId",
  "previousRefreshTokenId",
  "rotatedAt",
  "aal",
  "amr",
  "ip",
  "userAgent",
  "updatedAt",
] as const satisfies readonly (keyof SessionRow)[];

const pick = <T extends object, K extends keyof T>(row: T, keys: readonly K[]) =>
  Object.fromEntries(keys.map((key) => [key, row[key]])) as Pick<T, K>;

/** Sessions; deleting one deletes its refresh tokens through ON DELETE CASCADE. */
export function createSessionStore(db: Database, schema: Schema): SessionStore {
  const { sessions, refreshTokens } = schema;
  return {
    async insert(session) {
      await insertOne(db, schema.namespace, "session_insert", sessions, toSessionRow(session));
    },

    async update(session) {
      // Every refresh writes here: prepared, with all the columns a session's life changes.
      const statement = prepared(db, schema.namespace, "session_update", (name) =>
        db
          .update(sessions)
          .set(placeholders(UPDATED_COLUMNS) as never)
          .where(eq(sessions.id, sql.placeholder("id")))
          .prepare(name),
      );
      const row = toSessionRow(session);
      await statement.execute({ ...encodeColumns(sessions, pick(row, UPDATED_COLUMNS)), id: row.id });
    },

    // Each of these two is one statement (the second write in a data-modifying CTE), which is one round trip fewer
    // for every sign-in and every refresh; a single statement is atomic on its own.
    async open(session, firstToken) {
      const statement = prepared(db, schema.namespace, "session_open", (name) => {
        const opened = db.$with("opened").as(insertWithPlaceholders(db, sessions, "s_") as never);
        return db
          .with(opened)
          .insert(refreshTokens)
          .values(placeholders(insertableKeys(refreshTokens), "t_") as never)
          .prepare(name);
      });
      await statement.execute({
        ...encodeColumns(sessions, toSessionRow(session), "s_"),
        ...encodeColumns(refreshTokens, toRefreshTokenRow(firstToken), "t_"),
      });
    },

    async rotate(session, child) {
      const statement = prepared(db, schema.namespace, "session_rotate", (name) => {
        const added = db.$with("child").as(insertWithPlaceholders(db, refreshTokens, "t_") as never);
        return db
          .with(added)
          .update(sessions)
          .set(placeholders(UPDATED_COLUMNS, "s_") as never)
          .where(eq(sessions.id, sql.placeholder("s_id")))
          .prepare(name);
      });
      const row = toSessionRow(session);
      await statement.execute({
        ...encodeColumns(refreshTokens, toRefreshTokenRow(child), "t_"),
        ...encodeColumns(sessions, pick(row, UPDATED_COLUMNS), "s_"),
        s_id: row.id,
      });
    },

    async deleteAllOfUser(userId, options) {
      const except = options?.except;
      await db
        .delete(sessions)
        .where(except === undefined ? eq(sessions.userId, userId) : and(eq(sessions.userId, userId), ne(sessions.id, except)));
    },

    async deleteOne(userId, sessionId) {
      await db.delete(sessions).where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId)));
    },

    async endAllOfUser(userId, at) {
      await db
        .update(sessions)
        .set({ notAfter: at })
        .where(and(eq(sessions.userId, userId), or(isNull(sessions.notAfter), gt(sessions.notAfter, at))));
    },
  };
}
