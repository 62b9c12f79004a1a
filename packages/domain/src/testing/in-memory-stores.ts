import { AuthError, messages } from "../errors.ts";
import type { AuditEntry } from "../model/audit.ts";
import type { Factor, MfaChallenge } from "../model/factor.ts";
import type { FlowState } from "../model/flow-state.ts";
import { type Identity, identityEmail } from "../model/identity.ts";
import type { OAuthFlow } from "../model/oauth-flow.ts";
import { oldestFirst } from "../model/oldest-first.ts";
import type { OneTimeToken } from "../model/one-time-token.ts";
import type { OutboxEntry } from "../model/outbox.ts";
import type { RefreshToken } from "../model/refresh-token.ts";
import type { Session } from "../model/session.ts";
import type { User } from "../model/user.ts";
import type {
  AuditLogStore,
  FactorStore,
  FlowStateStore,
  IdentityStore,
  OAuthFlowStore,
  OneTimeTokenStore,
  OutboxStore,
  RefreshTokenStore,
  SessionStore,
  Stores,
  UsedIdTokenStore,
  UserStore,
} from "../ports/stores.ts";
import type { StoreContractSubject } from "./contracts/store-contract.ts";

type UserRow = Omit<User, "identities" | "factors">;

interface State {
  users: Map<string, UserRow>;
  identities: Map<string, Identity>;
  factors: Map<string, Factor>;
  challenges: Map<string, MfaChallenge>;
  sessions: Map<string, Session>;
  refreshTokens: Map<string, RefreshToken>;
  oneTimeTokens: Map<string, OneTimeToken>;
  auditLog: AuditEntry[];
  outbox: Map<string, OutboxEntry & { leaseUntil: Date | null; claim: string | null }>;
  flowStates: Map<string, FlowState>;
  oauthFlows: Map<string, OAuthFlow>;
  usedIdTokens: Map<string, Date>;
}

const emptyState = (): State => ({
  users: new Map(),
  identities: new Map(),
  factors: new Map(),
  challenges: new Map(),
  sessions: new Map(),
  refreshTokens: new Map(),
  oneTimeTokens: new Map(),
  auditLog: [],
  outbox: new Map(),
  flowStates: new Map(),
  oauthFlows: new Map(),
  usedIdTokens: new Map(),
});

// Everything goes in and out as a copy, as it would through a database.
const copy = <T>(value: T): T => structuredClone(value);

/** Case-insensitive substring, as ILIKE '%text%' with every character literal. */
const contains = (value: string | null, text: string) => value?.toLowerCase().includes(text.toLowerCase()) ?? false;

const fullName = (user: UserRow) => {
  const name = user.userMetadata["full_name"];
  return typeof name === "string" ? name : null;
};

// Uuids compare as their lower-case text does, as PostgreSQL orders them.
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A factor's friendly name as its unique index compares it: PostgreSQL's trim(), which removes spaces only. */
const trimmedName = (factor: Factor) => factor.friendlyName?.replace(/^ +| +$/g, "") ?? "";

/** How long an OAuth flow nobody came back for is kept, as the PostgreSQL store keeps it. */
const OAUTH_FLOW_ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

const deleteWhere = <T>(map: Map<string, T>, matches: (value: T) => boolean) => {
  for (const [key, value] of map) if (matches(value)) map.delete(key);
};

/**
 * Stores over Maps. Transactions run one at a time and restore a snapshot when their work throws, so a test
 * notices when a rollback would undo something; calls made outside a transaction are single-call transactions.
 */
/** The stores in memory, and `readOutbox`: what the outbox keeps of a message, for tests to look at. */
export function createInMemoryStores(): StoreContractSubject {
  let state = emptyState();
  let queue: Promise<unknown> = Promise.resolve();

  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => undefined);
    return result;
  };

  const run = <T>(work: (stores: Stores) => Promise<T>): Promise<T> =>
    exclusive(async () => {
      const snapshot = copy(state);
      try {
        return await work(bound);
      } catch (error) {
        state = snapshot;
        throw error;
      }
    });

  const withIdentities = (row: UserRow): User => ({
    ...copy(row),
    identities: oldestFirst([...state.identities.values()].filter((identity) => identity.userId === row.id)).map(copy),
    factors: oldestFirst([...state.factors.values()].filter((factor) => factor.userId === row.id)).map(copy),
  });

  const assertUnique = (user: UserRow) => {
    for (const other of state.users.values()) {
      if (other.id === user.id) continue;
      if (user.email !== null && other.email === user.email) throw new AuthError("email_exists", messages.emailExists);
      if (user.phone !== null && other.phone === user.phone) throw new AuthError("phone_exists", messages.phoneExists);
    }
  };

  const saveIdentity = (identity: Identity) => {
    if (!state.users.has(identity.userId)) throw new Error(`no user ${identity.userId}`);
    const same = [...state.identities.values()].find(
      (other) => other.provider === identity.provider && other.providerId === identity.providerId,
    );
    if (same && same.userId !== identity.userId) {
      throw new AuthError("identity_already_exists", "Identity is already linked to another user");
    }
    state.identities.set(same?.id ?? identity.id, copy({ ...identity, id: same?.id ?? identity.id }));
  };

  /** What the factors' partial unique indexes refuse, with GoTrue's answers. */
  const assertFactorUnique = (factor: Factor) => {
    for (const other of state.factors.values()) {
      if (other.id === factor.id || other.userId !== factor.userId) continue;
      const name = trimmedName(factor);
      if (name !== "" && trimmedName(other) === name) {
        throw new AuthError(
          "mfa_factor_name_conflict",
          `A factor with the friendly name "${factor.friendlyName ?? ""}" for this user already exists`,
        );
      }
      if (
        factor.status === "verified" &&
        other.status === "verified" &&
        factor.phone !== null &&
        other.phone === factor.phone
      ) {
        throw new AuthError(
          "mfa_verified_factor_exists",
          "A verified phone factor already exists, unenroll the existing factor to continue",
        );
      }
    }
  };

  /** Deletes the identities that match; a token that carried one carries none (ON DELETE SET NULL). */
  const deleteIdentities = (matches: (identity: Identity) => boolean): number => {
    let deleted = 0;
    for (const identity of [...state.identities.values()]) {
      if (!matches(identity)) continue;
      state.identities.delete(identity.id);
      for (const token of state.oneTimeTokens.values()) {
        if (token.identityId === identity.id) state.oneTimeTokens.set(token.id, { ...token, identityId: null });
      }
      deleted += 1;
    }
    return deleted;
  };

  /** Deletes the factors that match, with their challenges (ON DELETE CASCADE in the database). */
  const deleteFactors = (matches: (factor: Factor) => boolean): number => {
    let deleted = 0;
    for (const factor of [...state.factors.values()]) {
      if (!matches(factor)) continue;
      state.factors.delete(factor.id);
      deleteWhere(state.challenges, (challenge) => challenge.factorId === factor.id);
      deleted += 1;
    }
    return deleted;
  };

  const deleteSessions = (keep: (session: Session) => boolean) => {
    for (const session of [...state.sessions.values()]) {
      if (keep(session)) continue;
      state.sessions.delete(session.id);
      for (const token of [...state.refreshTokens.values()]) {
        if (token.sessionId === session.id) state.refreshTokens.delete(token.id);
      }
    }
  };

  const users: UserStore = {
    async insert(user) {
      if (state.users.has(user.id)) throw new Error(`duplicate user id ${user.id}`);
      // Factors are the FactorStore's to write.
      const { identities, factors: _factors, ...row } = user;
      assertUnique(row);
      state.users.set(row.id, copy(row));
      for (const identity of identities) saveIdentity(identity);
    },
    async update(user) {
      if (!state.users.has(user.id)) return;
      const { identities: _identities, factors: _factors, ...row } = user;
      assertUnique(row);
      state.users.set(row.id, copy(row));
    },
    async findById(id) {
      const row = state.users.get(id);
      return row ? withIdentities(row) : null;
    },
    async findByEmail(email) {
      const row = [...state.users.values()].find((user) => user.email === email);
      return row ? withIdentities(row) : null;
    },
    async findByPhone(phone) {
      const row = [...state.users.values()].find((user) => user.phone === phone);
      return row ? withIdentities(row) : null;
    },
    async findWithSession(userId, sessionId) {
      const row = state.users.get(userId);
      if (!row) return null;
      const session = state.sessions.get(sessionId);
      return { user: withIdentities(row), session: session && session.userId === userId ? copy(session) : null };
    },
    async list({ page, perPage, order, aud, filter, email, phone }) {
      const sign = order === "asc" ? 1 : -1;
      const matching = [...state.users.values()]
        .filter(
          (user) =>
            (aud === undefined || user.aud === aud) &&
            (email === undefined || user.email === email) &&
            (phone === undefined || user.phone === phone) &&
            (!filter || contains(user.email, filter) || contains(fullName(user), filter)),
        )
        .sort((a, b) => sign * (a.createdAt.getTime() - b.createdAt.getTime() || byId(a, b)));
      return {
        users: matching.slice((page - 1) * perPage, page * perPage).map(withIdentities),
        total: matching.length,
      };
    },
    async delete(id) {
      if (!state.users.delete(id)) return false;
      // What ON DELETE CASCADE takes with the user in the database; audit entries stay.
      deleteWhere(state.identities, (identity) => identity.userId === id);
      deleteFactors((factor) => factor.userId === id);
      deleteSessions((session) => session.userId !== id);
      deleteWhere(state.oneTimeTokens, (token) => token.userId === id);
      deleteWhere(state.flowStates, (flow) => flow.userId === id);
      deleteWhere(state.oauthFlows, (flow) => flow.linkingTargetId === id || flow.inviteUserId === id);
      return true;
    },
  };

  const identities: IdentityStore = {
    async save(identity) {
      saveIdentity(identity);
    },
    async find(provider, providerId) {
      const found = [...state.identities.values()].find(
        (identity) => identity.provider === provider && identity.providerId === providerId,
      );
      return found ? copy(found) : null;
    },
    async findByEmails(emails) {
      const wanted = new Set(emails);
      return [...state.identities.values()]
        .filter((identity) => {
          const email = identityEmail(identity);
          return email !== null && wanted.has(email);
        })
        .map(copy);
    },
    async delete(userId, identityId) {
      return deleteIdentities((identity) => identity.id === identityId && identity.userId === userId) > 0;
    },
    async deleteAllOfUser(userId) {
      deleteIdentities((identity) => identity.userId === userId);
    },
  };

  const insertSession = (session: Session) => {
    if (!state.users.has(session.userId)) throw new Error(`no user ${session.userId}`);
    state.sessions.set(session.id, copy(session));
  };
  const insertRefreshToken = (token: RefreshToken) => {
    if (!state.sessions.has(token.sessionId)) throw new Error(`no session ${token.sessionId}`);
    for (const other of state.refreshTokens.values()) {
      if (other.tokenHash === token.tokenHash) throw new Error("duplicate refresh token digest");
      if (token.parentId !== null && other.parentId === token.parentId) throw new Error("parent already has a child");
    }
    state.refreshTokens.set(token.id, copy(token));
  };

  const sessions: SessionStore = {
    async update(session) {
      if (state.sessions.has(session.id)) state.sessions.set(session.id, copy(session));
    },
    async open(session, firstToken, audit) {
      insertSession(session);
      insertRefreshToken(firstToken);
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
      // All or nothing, as every call: a failure restores the snapshot (see `single`).
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
      insertRefreshToken(child);
      const { refreshTokenId, previousRefreshTokenId, rotatedAt, ip, userAgent, updatedAt } = session;
      await sessions.update({ ...stored, refreshTokenId, previousRefreshTokenId, rotatedAt, ip, userAgent, updatedAt });
      for (const entry of audit ?? []) await auditLog.append(entry);
      return true;
    },
    async deleteAllOfUser(userId, options) {
      deleteSessions(
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
      deleteSessions((session) => session.userId !== userId || session.id !== sessionId);
    },
    async endAllOfUser(userId, at) {
      for (const [id, session] of state.sessions) {
        if (session.userId !== userId || (session.notAfter !== null && session.notAfter <= at)) continue;
        state.sessions.set(id, copy({ ...session, notAfter: at }));
      }
    },
  };

  const refreshTokens: RefreshTokenStore = {
    async lockForRefresh(tokenHash) {
      return refreshTokens.findForRefresh(tokenHash);
    },
    async findForRefresh(tokenHash) {
      const token = [...state.refreshTokens.values()].find((candidate) => candidate.tokenHash === tokenHash);
      const session = token && state.sessions.get(token.sessionId);
      const user = session && state.users.get(session.userId);
      if (!token || !session || !user) return null;
      return { token: copy(token), session: copy(session), user: withIdentities(user) };
    },
  };

  const oneTimeTokens: OneTimeTokenStore = {
    async replace(token) {
      if (!state.users.has(token.userId)) throw new Error(`no user ${token.userId}`);
      for (const other of [...state.oneTimeTokens.values()]) {
        if (other.userId === token.userId && other.kind === token.kind) state.oneTimeTokens.delete(other.id);
      }
      state.oneTimeTokens.set(token.id, copy(token));
    },
    async findByUser(userId, kind) {
      const token = [...state.oneTimeTokens.values()].find((other) => other.userId === userId && other.kind === kind);
      return token ? copy(token) : null;
    },
    async findByLinkTokenHash(linkTokenHash) {
      const token = [...state.oneTimeTokens.values()].find((other) => other.linkTokenHash === linkTokenHash);
      return token ? copy(token) : null;
    },
    async takeCodeAttempt(id, max) {
      const token = state.oneTimeTokens.get(id);
      if (!token || token.failedAttempts >= max) return false;
      state.oneTimeTokens.set(id, { ...token, failedAttempts: token.failedAttempts + 1 });
      return true;
    },
    async findByAddress(relatesTo, kinds) {
      return [...state.oneTimeTokens.values()]
        .filter((token) => token.relatesTo === relatesTo && kinds.includes(token.kind))
        .map(copy);
    },
    async delete(id) {
      return state.oneTimeTokens.delete(id);
    },
    async deleteAllOfUser(userId) {
      for (const token of [...state.oneTimeTokens.values()]) {
        if (token.userId === userId) state.oneTimeTokens.delete(token.id);
      }
    },
  };

  const factors: FactorStore = {
    async insert(factor) {
      if (!state.users.has(factor.userId)) throw new Error(`no user ${factor.userId}`);
      if (state.factors.has(factor.id)) throw new Error(`duplicate factor id ${factor.id}`);
      assertFactorUnique(factor);
      state.factors.set(factor.id, copy(factor));
    },
    async update(factor) {
      const stored = state.factors.get(factor.id);
      if (!stored || stored.userId !== factor.userId) return;
      // The mutable columns only: type, secret and creation stay as inserted.
      const { status, friendlyName, phone, lastTotpStep, lastChallengedAt, updatedAt } = factor;
      const updated = { ...stored, status, friendlyName, phone, lastTotpStep, lastChallengedAt, updatedAt };
      assertFactorUnique(updated);
      state.factors.set(factor.id, copy(updated));
    },
    async find(userId, factorId) {
      const factor = state.factors.get(factorId);
      return factor && factor.userId === userId ? copy(factor) : null;
    },
    async delete(userId, factorId) {
      return deleteFactors((factor) => factor.id === factorId && factor.userId === userId) > 0;
    },
    async deleteAllOfUser(userId) {
      deleteFactors((factor) => factor.userId === userId);
    },
    async deleteUnverified(userId, { type, phone, idleBefore, except }) {
      deleteFactors(
        (factor) =>
          factor.userId === userId &&
          factor.status === "unverified" &&
          (type === undefined || factor.type === type) &&
          (phone === undefined || factor.phone === phone) &&
          (idleBefore === undefined || (factor.lastChallengedAt ?? factor.createdAt) < idleBefore) &&
          (except === undefined || factor.id !== except),
      );
    },
    async insertChallenge(challenge) {
      if (!state.factors.has(challenge.factorId)) throw new Error(`no factor ${challenge.factorId}`);
      if (state.challenges.has(challenge.id)) throw new Error(`duplicate challenge id ${challenge.id}`);
      state.challenges.set(challenge.id, copy(challenge));
    },
    async lockChallenge(factorId, challengeId) {
      // Transactions run one at a time here: holding the challenge needs nothing more.
      const challenge = state.challenges.get(challengeId);
      return challenge && challenge.factorId === factorId ? copy(challenge) : null;
    },
    async markChallengeVerified(challengeId, at) {
      const challenge = state.challenges.get(challengeId);
      if (challenge) state.challenges.set(challengeId, copy({ ...challenge, verifiedAt: at }));
    },
    async deleteChallenge(challengeId) {
      state.challenges.delete(challengeId);
    },
  };

  const flowStates: FlowStateStore = {
    async insert(flow) {
      if (!state.users.has(flow.userId)) throw new Error(`no user ${flow.userId}`);
      state.flowStates.set(flow.id, copy(flow));
    },
    async consume(authCodeHash) {
      const flow = [...state.flowStates.values()].find((candidate) => candidate.authCodeHash === authCodeHash);
      if (!flow) return null;
      state.flowStates.delete(flow.id);
      return copy(flow);
    },
  };

  const oauthFlows: OAuthFlowStore = {
    async insert(flow) {
      for (const userId of [flow.linkingTargetId, flow.inviteUserId]) {
        if (userId !== null && !state.users.has(userId)) throw new Error(`no user ${userId}`);
      }
      // As the database does: flows nobody came back for, begun more than a day before this one, are removed.
      const abandonedBefore = flow.createdAt.getTime() - OAUTH_FLOW_ABANDONED_AFTER_MS;
      deleteWhere(state.oauthFlows, (other) => other.createdAt.getTime() < abandonedBefore);
      state.oauthFlows.set(flow.id, copy(flow));
    },
    async take(id) {
      const flow = state.oauthFlows.get(id);
      if (!flow) return null;
      state.oauthFlows.delete(id);
      return copy(flow);
    },
  };

  const usedIdTokens: UsedIdTokenStore = {
    async remember(digest, expiresAt, now) {
      for (const [each, until] of state.usedIdTokens) if (until < now) state.usedIdTokens.delete(each);
      if (state.usedIdTokens.has(digest)) return false;
      state.usedIdTokens.set(digest, expiresAt);
      return true;
    },
  };

  const auditLog: AuditLogStore = {
    async append(entry) {
      state.auditLog.push(copy(entry));
    },
    async list({ page, perPage, author, actions }) {
      // Entries of one transaction share their time: insertion order breaks the tie, as in the database.
      const newestFirst = state.auditLog
        .map((entry, position) => ({ entry, position }))
        .filter(
          ({ entry }) =>
            (!author || contains(entry.actorUsername, author) || contains(entry.actorName, author)) &&
            (actions === undefined || actions.includes(entry.action)),
        )
        .sort((a, b) => b.entry.createdAt.getTime() - a.entry.createdAt.getTime() || b.position - a.position)
        .map(({ entry }) => entry);
      return { entries: newestFirst.slice((page - 1) * perPage, page * perPage).map(copy), total: newestFirst.length };
    },
  };

  const outbox: OutboxStore = {
    async enqueue(entry) {
      state.outbox.set(entry.id, copy({ ...entry, leaseUntil: null, claim: null }));
    },
    async claimDue({ now, limit, leaseUntil, claim }) {
      const due = [...state.outbox.values()]
        .filter(
          (entry) =>
            entry.nextAttemptAt !== null &&
            entry.nextAttemptAt <= now &&
            (entry.leaseUntil === null || entry.leaseUntil <= now),
        )
        .sort((a, b) => a.nextAttemptAt!.getTime() - b.nextAttemptAt!.getTime())
        .slice(0, limit);
      for (const entry of due) state.outbox.set(entry.id, { ...entry, leaseUntil, claim });
      return due.map(({ leaseUntil: _lease, claim: _claim, ...entry }) => copy(entry));
    },
    async renewLeases({ held, now, leaseUntil }) {
      const renewed: string[] = [];
      for (const { id, claim } of held) {
        const entry = state.outbox.get(id);
        if (!entry || entry.claim !== claim || entry.leaseUntil === null || entry.leaseUntil <= now) continue;
        state.outbox.set(id, { ...entry, leaseUntil });
        renewed.push(id);
      }
      return renewed;
    },
    async pending() {
      const backlog = new Map<OutboxEntry["channel"], { count: number; oldestCreatedAt: Date }>();
      for (const entry of state.outbox.values()) {
        if (entry.nextAttemptAt === null) continue;
        const seen = backlog.get(entry.channel);
        if (!seen) backlog.set(entry.channel, { count: 1, oldestCreatedAt: entry.createdAt });
        else {
          seen.count += 1;
          if (entry.createdAt < seen.oldestCreatedAt) seen.oldestCreatedAt = entry.createdAt;
        }
      }
      return [...backlog].map(([channel, { count, oldestCreatedAt }]) => ({
        channel,
        count,
        oldestCreatedAt: new Date(oldestCreatedAt),
      }));
    },
    async markDelivered({ id, claim }, at) {
      const entry = state.outbox.get(id);
      if (!entry || entry.claim !== claim) return false;
      state.outbox.set(id, {
        ...entry,
        deliveredAt: at,
        nextAttemptAt: null,
        sealedMessage: null,
        leaseUntil: null,
        claim: null,
      });
      return true;
    },
    async markFailed({ id, claim }, { attempts, nextAttemptAt, error }) {
      const entry = state.outbox.get(id);
      if (!entry || entry.claim !== claim) return false;
      const sealedMessage = nextAttemptAt === null ? null : entry.sealedMessage;
      state.outbox.set(id, {
        ...entry,
        attempts,
        nextAttemptAt,
        lastError: error,
        sealedMessage,
        leaseUntil: null,
        claim: null,
      });
      return true;
    },
  };

  const bound: Stores = {
    users,
    factors,
    identities,
    sessions,
    refreshTokens,
    oneTimeTokens,
    auditLog,
    outbox,
    flowStates,
    oauthFlows,
    usedIdTokens,
  };

  // Outside a transaction every call is a transaction of its own.
  const single = <S extends object>(store: S): S =>
    Object.fromEntries(
      Object.entries(store).map(([name, method]) => [
        name,
        (...args: unknown[]) => run(() => (method as (...a: unknown[]) => Promise<unknown>)(...args)),
      ]),
    ) as S;

  return {
    stores: {
      users: single(users),
      factors: single(factors),
      identities: single(identities),
      sessions: single(sessions),
      refreshTokens: single(refreshTokens),
      oneTimeTokens: single(oneTimeTokens),
      auditLog: single(auditLog),
      outbox: single(outbox),
      flowStates: single(flowStates),
      oauthFlows: single(oauthFlows),
      usedIdTokens: single(usedIdTokens),
    },
    tx: { run },
    readOutbox: async (id) => {
      const entry = state.outbox.get(id);
      if (!entry) return null;
      const { leaseUntil: _lease, claim: _claim, ...rest } = entry;
      return copy(rest);
    },
  };
}
