import type { SessionStore } from "@latchkey/domain";
import { and, eq, gt, isNull, ne, or, sql } from "drizzle-orm";
import type { Database } from "../database.ts";
import { type SessionRow, toSessionRow } from "../rows/session-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import { encodeColumns, insertOne, placeholders, prepared } from "./prepared.ts";

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
  const { sessions } = schema;
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
