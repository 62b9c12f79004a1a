import type { SessionStore } from "@latchkey/domain";
import { and, eq, gt, isNull, ne, or } from "drizzle-orm";
import type { Database } from "../database.ts";
import { toSessionRow } from "../rows/session-row.ts";
import type { Schema } from "../schema/create-schema.ts";

/** Sessions; deleting one deletes its refresh tokens through ON DELETE CASCADE. */
export function createSessionStore(db: Database, schema: Schema): SessionStore {
  const { sessions } = schema;
  return {
    async insert(session) {
      await db.insert(sessions).values(toSessionRow(session));
    },

    async update(session) {
      const row = toSessionRow(session);
      await db
        .update(sessions)
        .set({
          refreshTokenId: row.refreshTokenId,
          previousRefreshTokenId: row.previousRefreshTokenId,
          rotatedAt: row.rotatedAt,
          aal: row.aal,
          amr: row.amr,
          ip: row.ip,
          userAgent: row.userAgent,
          updatedAt: row.updatedAt,
        })
        .where(eq(sessions.id, row.id));
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
