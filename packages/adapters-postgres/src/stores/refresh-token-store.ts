import type { RefreshTokenStore } from "@latchkey/domain";
import { eq, inArray } from "drizzle-orm";
import type { Database } from "../database.ts";
import { fromRefreshTokenRow, toRefreshTokenRow } from "../rows/refresh-token-row.ts";
import { fromSessionRow } from "../rows/session-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import type { Atomic } from "./atomic.ts";
import { toUser, userColumns } from "./user-query.ts";

/** Refresh-token digests; whether one is valid is its session's business. */
export function createRefreshTokenStore(db: Database, schema: Schema, atomic: Atomic): RefreshTokenStore {
  const { refreshTokens, sessions, users } = schema;
  return {
    async insert(token) {
      await db.insert(refreshTokens).values(toRefreshTokenRow(token));
    },

    // Two statements, and no fewer. The first locks the session row: while another refresh of the family holds
    // it, this one waits. Once granted, READ COMMITTED's EvalPlanQual hands back the newest version of the locked
    // row only; the token, the user and the identities of that same statement would still come from the snapshot
    // taken before the wait. The second statement takes a new snapshot, after the lock, so it reads the session,
    // its user and identities as the previous holder committed them. An unknown digest costs one round trip.
    async lockForRefresh(tokenHash) {
      return atomic(async (db) => {
        const tokenSession = db.select({ id: refreshTokens.sessionId }).from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash));
        const locked = await db
          .select({ id: sessions.id })
          .from(sessions)
          .where(inArray(sessions.id, tokenSession))
          .for("update", { of: sessions });
        if (locked.length === 0) return null;

        const [row] = await db
          .select({ token: refreshTokens, session: sessions, ...userColumns(schema) })
          .from(refreshTokens)
          .innerJoin(sessions, eq(sessions.id, refreshTokens.sessionId))
          .innerJoin(users, eq(users.id, sessions.userId))
          .where(eq(refreshTokens.tokenHash, tokenHash))
          .limit(1);
        if (!row) return null;
        return { token: fromRefreshTokenRow(row.token), session: fromSessionRow(row.session), user: toUser(row) };
      });
    },
  };
}
