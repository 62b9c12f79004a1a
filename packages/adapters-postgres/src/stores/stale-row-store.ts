import type { StaleRowKind, StaleRowStore } from "@latchkey/domain";
import { and, eq, getTableName, inArray, isNull, lt, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { alias, type PgColumn, type PgTable } from "drizzle-orm/pg-core";
import type { Database } from "../database.ts";
import type { Schema } from "../schema/create-schema.ts";

/**
 * The clean-up (`<ns>` tables; 0017_cleanup_indexes.ts, 0018_cleanup_marks.ts and, for relay states,
 * 0020_sso_users_and_relay_states.ts for the indexes each search runs on). Every call is one statement:
 * `DELETE … WHERE key IN (SELECT key … LIMIT n FOR UPDATE SKIP LOCKED) RETURNING`, counted in the same statement.
 * Rows another transaction holds, a refresh's session or a sign-in's user (whose key share an insert referencing it
 * takes), are skipped, never waited for. What a row takes with it is its foreign keys' ON DELETE
 * CASCADE: a session's refresh tokens, a factor's challenges, everything of a user.
 */
export function createStaleRowStore(db: Database, schema: Schema): StaleRowStore {
  const {
    refreshTokens,
    sessions,
    oneTimeTokens,
    flowStates,
    oauthFlows,
    samlRelayStates,
    mfaChallenges,
    mfaFactors,
    oauthAuthorizations,
    webauthnChallenges,
    usedIdTokens,
    outbox,
    users,
    cleanupMarks,
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
    // Rotations are walked once, in the order of their children's creation (the index on created_at, id), from the
    // mark in cleanup_marks up to the cutoff, and the parents deleted; the children keep naming them. Whoever locks
    // the mark takes the batch; another instance at it meanwhile skips the kind. A parent another transaction holds
    // (a reuse ending its session, say) is skipped, and the walk stops before its child: the parents of children
    // from there on stay for the next batch, as a child of them is what finds the parent they hold in turn. A
    // session's current token is never deleted (no rotation leaves one as a parent: a guard all the same). A token
    // is written when it is created, the import's too, so none ever appears behind the mark.
    rotated_refresh_tokens: async (cutoff, limit) => {
      const tokens = sql.identifier(getTableName(refreshTokens));
      const sessionsTable = sql.identifier(getTableName(sessions));
      const marks = sql.identifier(getTableName(cleanupMarks));
      const kind = "rotated_refresh_tokens";
      const parent = sql.identifier("parent");
      const isCurrent = sql`exists (select 1 from ${sessionsTable} s where s.id = ${parent}.session_id and s.refresh_token_id = ${parent}.id)`;
      const result = await db.execute(sql`
        with mark as (
          select created_at, id from ${marks} where kind = ${kind} for update skip locked
        ), children as (
          -- The mark as two values, not a join, so that the index scan starts at it rather than filtering up to it.
          select child.created_at, child.id, child.parent_id from ${tokens} child
          where (child.created_at, child.id) > ((select created_at from mark), (select id from mark))
            and child.created_at < ${cutoff.toISOString()}::timestamptz and child.parent_id is not null
          order by child.created_at, child.id limit ${limit}
        ), parents as (
          select parent.id from ${tokens} parent join children on parent.id = children.parent_id
          where not ${isCurrent}
          for update of parent skip locked
        ), held as (
          select children.created_at, children.id from children join ${tokens} parent on parent.id = children.parent_id
          where parent.id not in (select id from parents) and not ${isCurrent}
          order by children.created_at, children.id limit 1
        ), walked as (
          select children.created_at, children.id, children.parent_id from children
          where not exists (select 1 from held where (children.created_at, children.id) >= (held.created_at, held.id))
        ), gone as (
          delete from ${tokens} using parents, walked
          where ${tokens}.id = parents.id and parents.id = walked.parent_id returning 1
        ), reached as (
          select created_at, id from walked order by created_at desc, id desc limit 1
        ), moved as (
          update ${marks} set created_at = reached.created_at, id = reached.id from reached
          where ${marks}.kind = ${kind} returning 1
        )
        select (select count(*)::int from gone) as count`);
      return countOf(result);
    },
    ended_sessions: (cutoff, limit) => deleteWhere(sessions, sessions.id, lt(sessions.notAfter, cutoff), limit),
    timeboxed_sessions: (cutoff, limit) => deleteWhere(sessions, sessions.id, lt(sessions.createdAt, cutoff), limit),
    // Last rotated (else created) before the cutoff. rotated_at changes on every refresh, so no index holds it (it
    // would cost the refresh its HOT update): the session's current token was created when it last rotated, and the
    // token index by creation finds it; the exact condition is checked on the session. The other tokens that index
    // holds before this cutoff are few once the rotated ones have gone (they go first): a session idle longer than
    // its inactivity limit cannot have been refreshed since.
    inactive_sessions: (cutoff, limit) =>
      deleteFound(
        sessions,
        sessions.id,
        db
          .select({ key: sessions.id })
          .from(current)
          .innerJoin(sessions, and(eq(sessions.id, current.sessionId), eq(sessions.refreshTokenId, current.id)))
          .where(
            and(lt(current.createdAt, cutoff), lt(sql`coalesce(${sessions.rotatedAt}, ${sessions.createdAt})`, cutoff)),
          )
          .limit(limit)
          .for("update", { of: sessions, skipLocked: true }),
      ),
    one_time_tokens: (cutoff, limit) =>
      deleteWhere(oneTimeTokens, oneTimeTokens.id, lt(oneTimeTokens.createdAt, cutoff), limit),
    flow_states: (cutoff, limit) => deleteWhere(flowStates, flowStates.id, lt(flowStates.createdAt, cutoff), limit),
    oauth_flows: (cutoff, limit) => deleteWhere(oauthFlows, oauthFlows.id, lt(oauthFlows.createdAt, cutoff), limit),
    saml_relay_states: (cutoff, limit) =>
      deleteWhere(samlRelayStates, samlRelayStates.id, lt(samlRelayStates.createdAt, cutoff), limit),
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
