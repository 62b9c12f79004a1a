import type { OAuthAuthorization } from "../../../model/oauth-authorization.ts";
import type { OAuthAuthorizationStore } from "../../../ports/stores.ts";
import { copy, deleteWhere, type State } from "./state.ts";

/** What the database's keys and constraints refuse: an unknown user or client, a code digest another request has. */
const checkReferences = (state: State, authorization: OAuthAuthorization) => {
  const { id, userId, clientId, codeDigest } = authorization;
  if (!state.oauthClients.has(clientId)) throw new Error(`no OAuth client ${clientId}`);
  if (userId !== null && !state.users.has(userId)) throw new Error(`no user ${userId}`);
  for (const other of state.oauthAuthorizations.values()) {
    if (codeDigest !== null && other.id !== id && other.codeDigest === codeDigest) {
      throw new Error("duplicate authorization code digest");
    }
  }
};

/** Authorization requests of third-party clients, found by id or by their code's digest. */
export const inMemoryOAuthAuthorizations = (state: State): OAuthAuthorizationStore => ({
  async insert(authorization, now) {
    if (state.oauthAuthorizations.has(authorization.id)) throw new Error(`duplicate authorization ${authorization.id}`);
    checkReferences(state, authorization);
    // The database forgets a bounded number per insert; here all of them go, which no test can tell apart.
    deleteWhere(state.oauthAuthorizations, (other) => other.expiresAt < now);
    state.oauthAuthorizations.set(authorization.id, copy(authorization));
  },
  async lock(id) {
    // Transactions run one at a time here: holding the request needs nothing more.
    const authorization = state.oauthAuthorizations.get(id);
    return authorization ? copy(authorization) : null;
  },
  async update(authorization) {
    const stored = state.oauthAuthorizations.get(authorization.id);
    if (!stored) return;
    const { userId, status, codeDigest, sessionId, approvedAt } = authorization;
    const updated = { ...stored, userId, status, codeDigest, sessionId, approvedAt };
    checkReferences(state, updated);
    state.oauthAuthorizations.set(stored.id, copy(updated));
  },
  async lockByCode(codeDigest) {
    // Transactions run one at a time here: holding the request needs nothing more.
    const authorization = [...state.oauthAuthorizations.values()].find((each) => each.codeDigest === codeDigest);
    return authorization ? copy(authorization) : null;
  },
});
