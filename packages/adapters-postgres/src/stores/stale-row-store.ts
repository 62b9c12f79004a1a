import type { StaleRowKind, StaleRowStore } from "@latchkey/domain";
import { and, eq, getTableName, inArray, isNotNull, isNull, lt, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { alias, type PgColumn, type PgTable } from "drizzle-orm/pg-core";
import type { Database } from "../database.ts";
import type { Schema } from "../schema/create-schema.ts";

/**
 * The clean-up (`<ns>` tables, 0017_cleanup_indexes.ts for the indexes each search runs on). Every call is one
 * statement: `DELETE … WHERE key IN (SELECT key … LIMIT n FOR UPDATE SKIP LOCKED) RETURNING`, counted in the same
 * statement. Rows another transaction holds, a refresh's session or a sign-in's user (whose key share an insert
 * referencing it takes), are skipped, never waited for. What a row takes with it is its foreign keys' ON DELETE
 * CASCADE: a session's refresh tokens, a factor's challenges, everything of a user.
 */
export function createStaleRowStore(db: Database, schema: Schema): StaleRowStore {
  const {
    refreshTokens,
    sessions,
    oneTimeTokens,
    flowStates,
    oauthFlows,
    mfaChallenges,
    mfaFactors,
    oauthAuthorizations,
    webauthnChallenges,
    usedIdTokens,
    outbox,
    users,
  } = schema;
  const current = alias(refreshTokens, "current");

  /** Deletes the rows of `table` whose `key` the locking `select` finds; returns how many went. */
  const deleteFound = async (table: PgTable, key: PgColumn, select: SQLWrapper) => {
    const gone = db.$with("gone").as(
      db
        .delete(table)
        .where(inArray(key, select))
        .returning({ key: sql`1`.as("key") }),
    );
    const [row] = await db.with(gone).select({ count: sql<number>`count(*)::int` }).from(gone);
    return row?.count ?? 0;
  };

  /** The count a raw statement selected, as node-postgres and PGlite both hand it back. */
  const countOf = (result: unknown) => (result as { rows: { count: number }[] }).rows[0]?.count ?? 0;

  /** The keys of at most `limit` rows of one table that `where` makes stale, locked, those held by others skipped. */
  const selectKeys = (table: PgTable, key: PgColumn, where: SQL | undefined, limit: number) =>
    db.select({ key }).from(table).where(where).limit(limit).for("update", { skipLocked: true });

  /** The simple kinds: one table, one condition, its own key. */
  const deleteWhere = (table: PgTable, key: PgColumn, where: SQL | undefined, limit: number) =>
    deleteFound(table, key, selectKeys(table, key, where, limit));

  const kinds: Record<StaleRowKind, (cutoff: Date, limit: number) => Promise<number>> = {
    // Parents of tokens created (their rotation) before the cutoff, found from the child's side through the index
    // of tokens still linked to their parent, oldest first; each child is unlinked as its parent goes, so that it
    // leaves that index and is never looked at again. A parent goes only once nothing links to it but that child:
    // its own link gone already, or going in the same statement (`ready`, from a family's oldest end up), so that no
    // token is ever left behind with nothing pointing at it. One statement: the children locked (those held
    // skipped), the ready ones' parents deleted (a session's current token never: no rotation leaves one as a
    // parent, a guard all the same), and the ready children not deleted as parents themselves unlinked; no row is
    // both updated and deleted, which one statement cannot do.
    rotated_refresh_tokens: async (cutoff, limit) => {
      const tokens = sql.identifier(getTableName(refreshTokens));
      const sessionsTable = sql.identifier(getTableName(sessions));
      const result = await db.execute(sql`
        with recursive stale as (
          select child.id as child_id, child.parent_id as parent_id from ${tokens} child
          where child.parent_id is not null and child.created_at < ${cutoff.toISOString()}::timestamptz
          order by child.created_at limit ${limit} for update skip locked
        ), ready as (
          select stale.child_id, stale.parent_id from stale
          left join ${tokens} parent on parent.id = stale.parent_id
          where parent.id is null or parent.parent_id is null
          union all
          select stale.child_id, stale.parent_id from stale join ready on stale.parent_id = ready.child_id
        ), gone as (
          delete from ${tokens} parent using ready
          where parent.id = ready.parent_id and not exists (
            select 1 from ${sessionsTable} s where s.id = parent.session_id and s.refresh_token_id = parent.id
          )
          returning 1
        ), unlinked as (
          update ${tokens} set parent_id = null from ready
          where ${tokens}.id = ready.child_id and ${tokens}.id not in (select parent_id from ready)
          returning 1
        )
        select (select count(*)::int from gone) as count, (select count(*)::int from unlinked) as unlinked`);
      return countOf(result);
    },
    ended_sessions: (cutoff, limit) => deleteWhere(sessions, sessions.id, lt(sessions.notAfter, cutoff), limit),
    timeboxed_sessions: (cutoff, limit) => deleteWhere(sessions, sessions.id, lt(sessions.createdAt, cutoff), limit),
    // Last rotated (else created) before the cutoff. rotated_at changes on every refresh, so no index holds it (it
    // would cost the refresh its HOT update): the session's current token was created when it last rotated, and the
    // token indexes by creation find it; the exact condition is checked on the session.
    inactive_sessions: (cutoff, limit) =>
      deleteFound(
        sessions,
        sessions.id,
        db
          .select({ key: sessions.id })
          .from(current)
          .innerJoin(sessions, and(eq(sessions.id, current.sessionId), eq(sessions.refreshTokenId, current.id)))
          .where(
            and(
              // Each half of the token index answers its arm; a current token is mostly in the unlinked one.
              or(
                and(isNull(current.parentId), lt(current.createdAt, cutoff)),
                and(isNotNull(current.parentId), lt(current.createdAt, cutoff)),
              ),
              lt(sql`coalesce(${sessions.rotatedAt}, ${sessions.createdAt})`, cutoff),
            ),
          )
          .limit(limit)
          .for("update", { of: sessions, skipLocked: true }),
      ),
    one_time_tokens: (cutoff, limit) =>
      deleteWhere(oneTimeTokens, oneTimeTokens.id, lt(oneTimeTokens.createdAt, cutoff), limit),
    flow_states: (cutoff, limit) => deleteWhere(flowStates, flowStates.id, lt(flowStates.createdAt, cutoff), limit),
    oauth_flows: (cutoff, limit) => deleteWhere(oauthFlows, oauthFlows.id, lt(oauthFlows.createdAt, cutoff), limit),
    mfa_challenges: (cutoff, limit) =>
      deleteWhere(mfaChallenges, mfaChallenges.id, lt(mfaChallenges.createdAt, cutoff), limit),
    unverified_factors: (cutoff, limit) =>
      deleteWhere(
        mfaFactors,
        mfaFactors.id,
        // A literal, as in the partial index's predicate, so that the planner sees the index answers it.
        and(sql`${mfaFactors.status} = 'unverified'`, lt(mfaFactors.createdAt, cutoff)),
        limit,
      ),
    oauth_authorizations: (cutoff, limit) =>
      deleteWhere(oauthAuthorizations, oauthAuthorizations.id, lt(oauthAuthorizations.expiresAt, cutoff), limit),
    webauthn_challenges: (cutoff, limit) =>
      deleteWhere(webauthnChallenges, webauthnChallenges.id, lt(webauthnChallenges.expiresAt, cutoff), limit),
    used_id_tokens: (cutoff, limit) =>
      deleteWhere(usedIdTokens, usedIdTokens.digest, lt(usedIdTokens.expiresAt, cutoff), limit),
    // Delivered or given up: no attempt left (next_attempt_at null), so neither due nor leased, as a claim only
    // takes what is due; the lease is checked all the same.
    finished_outbox: (cutoff, limit) =>
      deleteWhere(
        outbox,
        outbox.id,
        and(isNull(outbox.nextAttemptAt), isNull(outbox.leaseUntil), lt(outbox.createdAt, cutoff)),
        limit,
      ),
    // Soft-deleted ones too.
    anonymous_users: (cutoff, limit) =>
      deleteWhere(users, users.id, and(sql`${users.isAnonymous}`, lt(users.createdAt, cutoff)), limit),
  };

  return {
    async deleteStale(kind, cutoff, limit) {
      return kinds[kind](cutoff, limit);
    },
  };
}
