import type { RefreshTokenStore } from "@latchkey/domain";
import { eq, inArray, type Placeholder, sql } from "drizzle-orm";
import type { Database } from "../database.ts";
import { fromRefreshTokenJson, fromRefreshTokenRow, type RefreshTokenJson } from "../rows/refresh-token-row.ts";
import { fromSessionJson, type SessionJson } from "../rows/session-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import type { Atomic } from "./atomic.ts";
import { prepared } from "./prepared.ts";
import { rowJson, toUser, type UserColumnsJson, userColumns } from "./user-query.ts";

type FoundRow = UserColumnsJson & { token: RefreshTokenJson; session: SessionJson };

const toFound = (row: FoundRow) => ({
  token: fromRefreshTokenRow(fromRefreshTokenJson(row.token)),
  session: fromSessionJson(row.session),
  user: toUser(row),
});

/** Refresh-token digests; whether one is valid is its session's business. */
export function createRefreshTokenStore(db: Database, schema: Schema, atomic: Atomic): RefreshTokenStore {
  const { refreshTokens, sessions, users } = schema;
  /** The token with this digest, its session and its user. */
  const selectFound = (db: Database, tokenHash: string | Placeholder) =>
    db
      .select({
        token: rowJson<RefreshTokenJson>(refreshTokens),
        session: rowJson<SessionJson>(sessions),
        ...userColumns(schema),
      })
      .from(refreshTokens)
      .innerJoin(sessions, eq(sessions.id, refreshTokens.sessionId))
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(eq(refreshTokens.tokenHash, tokenHash))
      .limit(1);
  return {
    // Refreshes of one family queue on the session row. Usually nobody else holds it, and one statement locks it
    // and reads the token, the user, its identities and factors with it (SKIP LOCKED: it never waits). When another
    // refresh holds it, waiting inside that statement would not do: once the lock is granted, READ COMMITTED's
    // EvalPlanQual hands back the newest version of the locked row only, and the token, the user, its identities and
    // factors would still come from the snapshot taken before the wait. So the slow path waits for the lock in one
    // statement and reads in a second, whose new snapshot sees the session, its user, identities and factors as the
    // previous holder committed them. An unknown digest costs both paths' locking statements.
    async lockForRefresh(tokenHash) {
      return atomic(async (db) => {
        const uncontended = prepared(db, schema.namespace, "refresh_lock", (name) =>
          selectFound(db, sql.placeholder("tokenHash")).for("update", { of: sessions, skipLocked: true }).prepare(name),
        );
        const [free] = await uncontended.execute({ tokenHash });
        if (free) return toFound(free);

        const tokenSession = db
          .select({ id: refreshTokens.sessionId })
          .from(refreshTokens)
          .where(eq(refreshTokens.tokenHash, tokenHash));
        const locked = await db
          .select({ id: sessions.id })
          .from(sessions)
          .where(inArray(sessions.id, tokenSession))
          .for("update", { of: sessions });
        if (locked.length === 0) return null;

        const [row] = await selectFound(db, tokenHash);
        return row ? toFound(row) : null;
      });
    },

    async findForRefresh(tokenHash) {
      const statement = prepared(db, schema.namespace, "refresh_find", (name) =>
        selectFound(db, sql.placeholder("tokenHash")).prepare(name),
      );
      const [row] = await statement.execute({ tokenHash });
      return row ? toFound(row) : null;
    },
  };
}
