// What deleting a row takes with it in the database (its ON DELETE rules), wherever the deletion starts.
import type { Factor } from "../../../model/factor.ts";
import type { Identity } from "../../../model/identity.ts";
import type { Session } from "../../../model/session.ts";
import { deleteWhere, type State } from "./state.ts";

/** Deletes the identities that match; a token that carried one carries none (ON DELETE SET NULL). */
export const deleteIdentities = (state: State, matches: (identity: Identity) => boolean): number => {
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
export const deleteFactors = (state: State, matches: (factor: Factor) => boolean): number => {
  let deleted = 0;
  for (const factor of [...state.factors.values()]) {
    if (!matches(factor)) continue;
    state.factors.delete(factor.id);
    deleteWhere(state.challenges, (challenge) => challenge.factorId === factor.id);
    deleted += 1;
  }
  return deleted;
};

/** Deletes the user's passkeys and the passkey ceremonies bound to it (ON DELETE CASCADE in the database). */
export const deleteWebAuthnOfUser = (state: State, userId: string) => {
  deleteWhere(state.passkeys, (passkey) => passkey.userId === userId);
  deleteWhere(state.webauthnChallenges, (challenge) => challenge.userId === userId);
};

/**
 * Deletes the user's consents and the authorization requests bound to it (ON DELETE CASCADE in the database). Clients
 * are only ever soft-deleted, so nothing goes with them.
 */
export const deleteOAuthOfUser = (state: State, userId: string) => {
  deleteWhere(state.oauthAuthorizations, (authorization) => authorization.userId === userId);
  deleteWhere(state.oauthConsents, (consent) => consent.userId === userId);
};

/** Deletes the sessions not kept, with their refresh tokens. */
export const deleteSessions = (state: State, keep: (session: Session) => boolean) => {
  for (const session of [...state.sessions.values()]) {
    if (keep(session)) continue;
    state.sessions.delete(session.id);
    for (const token of [...state.refreshTokens.values()]) {
      if (token.sessionId === session.id) state.refreshTokens.delete(token.id);
    }
  }
};
