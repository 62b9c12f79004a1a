import { AuthError, messages } from "../../../errors.ts";
import { oldestFirst } from "../../../model/oldest-first.ts";
import type { User } from "../../../model/user.ts";
import type { UserStore } from "../../../ports/stores.ts";
import { deleteFactors, deleteOAuthOfUser, deleteSessions, deleteWebAuthnOfUser } from "./cascades.ts";
import { saveIdentity } from "./identities.ts";
import { contains, copy, deleteWhere, type State, type UserRow } from "./state.ts";

const fullName = (user: UserRow) => {
  const name = user.userMetadata["full_name"];
  return typeof name === "string" ? name : null;
};

// Uuids compare as their lower-case text does, as PostgreSQL orders them.
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The user of this row, with its identities and factors: how every store hands a user out. */
export const withIdentities = (state: State, row: UserRow): User => ({
  ...copy(row),
  identities: oldestFirst([...state.identities.values()].filter((identity) => identity.userId === row.id)).map(copy),
  factors: oldestFirst([...state.factors.values()].filter((factor) => factor.userId === row.id)).map(copy),
});

/**
 * Throws as the database's unique keys would: an email is unique among the users that are no SSO users alone (its
 * partial unique index), a phone among all users.
 */
const assertUnique = (state: State, user: UserRow) => {
  for (const other of state.users.values()) {
    if (other.id === user.id) continue;
    if (user.email !== null && !user.isSsoUser && !other.isSsoUser && other.email === user.email) {
      throw new AuthError("email_exists", messages.emailExists);
    }
    if (user.phone !== null && other.phone === user.phone) throw new AuthError("phone_exists", messages.phoneExists);
  }
};

/** The user that holds `matches`' address: never an SSO user, whose address is its own only within its provider. */
const holderOf = (state: State, matches: (user: UserRow) => boolean) =>
  [...state.users.values()].find((user) => !user.isSsoUser && matches(user));

export const inMemoryUsers = (state: State): UserStore => {
  const toUser = (row: UserRow) => withIdentities(state, row);
  return {
    async insert(user) {
      if (state.users.has(user.id)) throw new Error(`duplicate user id ${user.id}`);
      // Factors are the FactorStore's to write.
      const { identities, factors: _factors, ...row } = user;
      assertUnique(state, row);
      state.users.set(row.id, copy(row));
      for (const identity of identities) saveIdentity(state, identity);
    },
    async update(user) {
      if (!state.users.has(user.id)) return;
      const { identities: _identities, factors: _factors, ...row } = user;
      assertUnique(state, row);
      state.users.set(row.id, copy(row));
    },
    async findById(id) {
      const row = state.users.get(id);
      return row ? toUser(row) : null;
    },
    async findByEmail(email) {
      const row = holderOf(state, (user) => user.email === email);
      return row ? toUser(row) : null;
    },
    async findByPhone(phone) {
      const row = holderOf(state, (user) => user.phone === phone);
      return row ? toUser(row) : null;
    },
    async findWithSession(userId, sessionId) {
      const row = state.users.get(userId);
      if (!row) return null;
      const session = state.sessions.get(sessionId);
      return { user: toUser(row), session: session && session.userId === userId ? copy(session) : null };
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
        users: matching.slice((page - 1) * perPage, page * perPage).map(toUser),
        total: matching.length,
      };
    },
    async delete(id) {
      if (!state.users.delete(id)) return false;
      // What ON DELETE CASCADE takes with the user in the database; audit entries stay.
      deleteWhere(state.identities, (identity) => identity.userId === id);
      deleteFactors(state, (factor) => factor.userId === id);
      deleteWebAuthnOfUser(state, id);
      deleteOAuthOfUser(state, id);
      deleteSessions(state, (session) => session.userId !== id);
      deleteWhere(state.oneTimeTokens, (token) => token.userId === id);
      deleteWhere(state.flowStates, (flow) => flow.userId === id);
      deleteWhere(state.oauthFlows, (flow) => flow.linkingTargetId === id || flow.inviteUserId === id);
      return true;
    },
  };
};
