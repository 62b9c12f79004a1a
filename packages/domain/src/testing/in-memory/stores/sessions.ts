import type { RefreshToken } from "../../../model/refresh-token.ts";
import type { Session } from "../../../model/session.ts";
import type { AuditLogStore, RefreshTokenStore, SessionStore, UserStore } from "../../../ports/stores.ts";
import { deleteSessions } from "./cascades.ts";
import { copy, type State } from "./state.ts";
import { withIdentities } from "./users.ts";

const insertSession = (state: State, session: Session) => {
  if (!state.users.has(session.userId)) throw new Error(`no user ${session.userId}`);
  // A deleted client keeps its row, so a key to it still holds.
  if (session.oauthClientId !== null && !state.oauthClients.has(session.oauthClientId)) {
    throw new Error(`no OAuth client ${session.oauthClientId}`);
  }
  state.sessions.set(session.id, copy(session));
};

const insertRefreshToken = (state: State, token: RefreshToken) => {
  if (!state.sessions.has(token.sessionId)) throw new Error(`no session ${token.sessionId}`);
  for (const other of state.refreshTokens.values()) {
    if (other.tokenHash === token.tokenHash) throw new Error("duplicate refresh token digest");
    if (token.parentId !== null && other.parentId === token.parentId) throw new Error("parent already has a child");
  }
  state.refreshTokens.set(token.id, copy(token));
};

/**
 * The sessions over `state`. The writes that take in a user or audit entries go through the stores of the same
 * transaction, `users` and `auditLog`.
 */
export const inMemorySessions = (
  state: State,
  { users, auditLog }: { users: UserStore; auditLog: AuditLogStore },
): SessionStore => {
  const sessions: SessionStore = {
    async update(session) {
      const stored = state.sessions.get(session.id);
      if (!stored) return;
      // The client and its scopes are the session's from its opening.
      const { oauthClientId, scopes } = stored;
      state.sessions.set(session.id, copy({ ...session, oauthClientId, scopes }));
    },
    async open(session, firstToken, audit) {
      insertSession(state, session);
      insertRefreshToken(state, firstToken);
      for (const entry of audit ?? []) await auditLog.append(entry);
    },
    async openWithPassword({ at, verifiedHash, rehash }, session, firstToken, audit) {
      const row = state.users.get(session.userId);
      if (!row || row.deletedAt !== null || row.passwordHash !== verifiedHash) return false;
      state.users.set(row.id, { ...row, lastSignInAt: at, passwordHash: rehash ?? row.passwordHash });
      await sessions.open(session, firstToken, audit);
      return true;
    },
    async openForNewUser(user, session, firstToken, audit) {
      // All or nothing, as every call: a failure restores the snapshot (see `single` in createInMemoryStores).
      await users.insert(user);
      await sessions.open(session, firstToken, audit);
    },
    async rotate(session, child, audit) {
      const stored = state.sessions.get(session.id);
      if (
        !stored ||
        stored.refreshTokenId !== child.parentId ||
        stored.notAfter?.getTime() !== session.notAfter?.getTime()
      )
        return false;
      insertRefreshToken(state, child);
      const { refreshTokenId, previousRefreshTokenId, rotatedAt, ip, userAgent, updatedAt } = session;
      await sessions.update({ ...stored, refreshTokenId, previousRefreshTokenId, rotatedAt, ip, userAgent, updatedAt });
      for (const entry of audit ?? []) await auditLog.append(entry);
      return true;
    },
    async deleteAllOfUser(userId, options) {
      deleteSessions(
        state,
        (session) =>
          session.userId !== userId ||
          session.id === options?.except ||
          (options?.onlyAal1 === true && session.aal !== "aal1"),
      );
    },
    async downgradeFactor(userId, factorId, method, at) {
      for (const [id, session] of state.sessions) {
        if (session.userId !== userId || session.factorId !== factorId) continue;
        const amr = session.amr.filter((entry) => entry.method !== method);
        state.sessions.set(id, copy({ ...session, aal: "aal1", factorId: null, amr, updatedAt: at }));
      }
    },
    async deleteOne(userId, sessionId) {
      deleteSessions(state, (session) => session.userId !== userId || session.id !== sessionId);
    },
    async deleteOfClient(userId, oauthClientId) {
      deleteSessions(state, (session) => session.userId !== userId || session.oauthClientId !== oauthClientId);
    },
    async endAllOfUser(userId, at) {
      for (const [id, session] of state.sessions) {
        if (session.userId !== userId || (session.notAfter !== null && session.notAfter <= at)) continue;
        state.sessions.set(id, copy({ ...session, notAfter: at }));
      }
    },

    async listOfUser(userId) {
      return [...state.sessions.values()].filter((session) => session.userId === userId).map(copy);
    },
  };
  return sessions;
};

export const inMemoryRefreshTokens = (state: State): RefreshTokenStore => {
  const refreshTokens: RefreshTokenStore = {
    async lockForRefresh(tokenHash) {
      // Transactions run one at a time here: holding the session needs nothing more.
      return refreshTokens.findForRefresh(tokenHash);
    },
    async findForRefresh(tokenHash) {
      const token = [...state.refreshTokens.values()].find((candidate) => candidate.tokenHash === tokenHash);
      const session = token && state.sessions.get(token.sessionId);
      const user = session && state.users.get(session.userId);
      if (!token || !session || !user) return null;
      return { token: copy(token), session: copy(session), user: withIdentities(state, user) };
    },
  };
  return refreshTokens;
};
