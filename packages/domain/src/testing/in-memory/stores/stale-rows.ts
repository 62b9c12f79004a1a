import type { Session } from "../../../model/session.ts";
import type { StaleRowKind, StaleRowStore } from "../../../ports/stale-rows.ts";
import { deleteFactors, deleteSessions } from "./cascades.ts";
import type { State } from "./state.ts";
import { inMemoryUsers } from "./users.ts";

/** The keys of the first `limit` entries that match, in the map's order (the database's is as arbitrary). */
const firstMatching = <T>(map: Map<string, T>, matches: (value: T) => boolean, limit: number): string[] => {
  const keys: string[] = [];
  for (const [key, value] of map) {
    if (keys.length >= limit) break;
    if (matches(value)) keys.push(key);
  }
  return keys;
};

/** Deletes the first `limit` entries that match, nothing going with them; returns how many went. */
const deleteMatching = <T>(map: Map<string, T>, matches: (value: T) => boolean, limit: number): number => {
  const keys = firstMatching(map, matches, limit);
  for (const key of keys) map.delete(key);
  return keys.length;
};

/** Whether `token` comes after `mark` in (createdAt, id) order, as PostgreSQL compares the row (uuids as text). */
const after = (token: { createdAt: Date; id: string }, mark: { createdAt: Date; id: string }) =>
  token.createdAt.getTime() !== mark.createdAt.getTime() ? token.createdAt > mark.createdAt : token.id > mark.id;

type SessionKind = "rotated_refresh_tokens" | "ended_sessions" | "timeboxed_sessions" | "inactive_sessions";
type Deleter = (cutoff: Date, limit: number) => Promise<number> | number;

/** The refresh tokens and sessions: a session takes its tokens with it. */
const sessionKinds = (state: State): Record<SessionKind, Deleter> => {
  const deleteSessionsOf = (ids: readonly string[]) => {
    const gone = new Set(ids);
    deleteSessions(state, (session) => !gone.has(session.id));
    return ids.length;
  };
  /** As the database finds them: through the current token, created when the session last rotated. */
  const inactive = (session: Session, cutoff: Date) => {
    const current = session.refreshTokenId === null ? undefined : state.refreshTokens.get(session.refreshTokenId);
    return (
      current !== undefined &&
      current.sessionId === session.id &&
      current.createdAt < cutoff &&
      (session.rotatedAt ?? session.createdAt) < cutoff
    );
  };
  return {
    // As the database does it: the children created after the mark and before the cutoff, in (createdAt, id)
    // order, their parents deleted (never a session's current token), the mark moved to the last child looked at.
    // No row is ever held by another transaction here, so none is skipped.
    rotated_refresh_tokens: (cutoff, limit) => {
      const mark = state.rotationMark;
      const children = [...state.refreshTokens.values()]
        .filter((token) => token.parentId !== null && token.createdAt < cutoff && (!mark || after(token, mark)))
        .sort((a, b) => (after(a, b) ? 1 : -1))
        .slice(0, limit);
      let deleted = 0;
      for (const child of children) {
        const parent = state.refreshTokens.get(child.parentId!);
        if (!parent || state.sessions.get(parent.sessionId)?.refreshTokenId === parent.id) continue;
        state.refreshTokens.delete(parent.id);
        deleted++;
      }
      const last = children.at(-1);
      if (last) state.rotationMark = { createdAt: last.createdAt, id: last.id };
      return deleted;
    },
    ended_sessions: (cutoff, limit) =>
      deleteSessionsOf(
        firstMatching(state.sessions, (session) => session.notAfter !== null && session.notAfter < cutoff, limit),
      ),
    timeboxed_sessions: (cutoff, limit) =>
      deleteSessionsOf(firstMatching(state.sessions, (session) => session.createdAt < cutoff, limit)),
    inactive_sessions: (cutoff, limit) =>
      deleteSessionsOf(firstMatching(state.sessions, (session) => inactive(session, cutoff), limit)),
  };
};

/** Every other kind. */
const otherKinds = (state: State): Record<Exclude<StaleRowKind, SessionKind>, Deleter> => {
  const users = inMemoryUsers(state);
  return {
    one_time_tokens: (cutoff, limit) => deleteMatching(state.oneTimeTokens, (token) => token.createdAt < cutoff, limit),
    flow_states: (cutoff, limit) => deleteMatching(state.flowStates, (flow) => flow.createdAt < cutoff, limit),
    oauth_flows: (cutoff, limit) => deleteMatching(state.oauthFlows, (flow) => flow.createdAt < cutoff, limit),
    saml_relay_states: (cutoff, limit) =>
      deleteMatching(state.samlRelayStates, (relayState) => relayState.createdAt < cutoff, limit),
    mfa_challenges: (cutoff, limit) =>
      deleteMatching(state.challenges, (challenge) => challenge.createdAt < cutoff, limit),
    unverified_factors: (cutoff, limit) => {
      const ids = new Set(
        firstMatching(state.factors, (factor) => factor.status === "unverified" && factor.createdAt < cutoff, limit),
      );
      return deleteFactors(state, (factor) => ids.has(factor.id));
    },
    oauth_authorizations: (cutoff, limit) =>
      deleteMatching(state.oauthAuthorizations, (authorization) => authorization.expiresAt < cutoff, limit),
    webauthn_challenges: (cutoff, limit) =>
      deleteMatching(state.webauthnChallenges, (challenge) => challenge.expiresAt < cutoff, limit),
    used_id_tokens: (cutoff, limit) => deleteMatching(state.usedIdTokens, (expiresAt) => expiresAt < cutoff, limit),
    // Nothing left to do: delivered or given up, and so neither due nor leased (a claim only takes what is due).
    finished_outbox: (cutoff, limit) =>
      deleteMatching(
        state.outbox,
        (entry) => entry.nextAttemptAt === null && entry.leaseUntil === null && entry.createdAt < cutoff,
        limit,
      ),
    anonymous_users: async (cutoff, limit) => {
      // Soft-deleted ones too; the user's delete takes what ON DELETE CASCADE takes with it.
      const ids = firstMatching(state.users, (user) => user.isAnonymous && user.createdAt < cutoff, limit);
      for (const id of ids) await users.delete(id);
      return ids.length;
    },
  };
};

/**
 * The clean-up over `state`. Transactions run one at a time here, so no row is ever held by another: nothing is
 * skipped. What a row takes with it is what the database's ON DELETE rules take (cascades.ts, and the users store's
 * delete for a user).
 */
export const inMemoryStaleRows = (state: State): StaleRowStore => {
  const kinds: Record<StaleRowKind, Deleter> = { ...sessionKinds(state), ...otherKinds(state) };
  return {
    async deleteStale(kind, cutoff, limit) {
      return kinds[kind](cutoff, limit);
    },
  };
};
