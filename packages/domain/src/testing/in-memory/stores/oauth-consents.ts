import type { OAuthConsent } from "../../../model/oauth-authorization.ts";
import type { OAuthConsentStore } from "../../../ports/stores.ts";
import { copy, type State } from "./state.ts";

/** Oldest grant first, grants of the same instant by id: the database's ORDER BY. */
const byGrant = (a: OAuthConsent, b: OAuthConsent) =>
  a.grantedAt.getTime() - b.grantedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** What users allowed clients: one row per user and client, as the unique key on the pair makes it in the database. */
export const inMemoryOAuthConsents = (state: State): OAuthConsentStore => {
  const ofPair = (userId: string, clientId: string) =>
    [...state.oauthConsents.values()].find((each) => each.userId === userId && each.clientId === clientId);
  const active = (consent: OAuthConsent | undefined) => (consent && consent.revokedAt === null ? consent : undefined);
  return {
    async findActive(userId, clientId) {
      const consent = active(ofPair(userId, clientId));
      return consent ? copy(consent) : null;
    },
    async listActive(userId) {
      const mine = [...state.oauthConsents.values()].filter((each) => each.userId === userId && active(each));
      return mine.sort(byGrant).map(copy);
    },
    async save(consent) {
      if (!state.users.has(consent.userId)) throw new Error(`no user ${consent.userId}`);
      if (!state.oauthClients.has(consent.clientId)) throw new Error(`no OAuth client ${consent.clientId}`);
      const earlier = ofPair(consent.userId, consent.clientId);
      if (earlier) state.oauthConsents.delete(earlier.id);
      if (state.oauthConsents.has(consent.id)) throw new Error(`duplicate consent id ${consent.id}`);
      state.oauthConsents.set(consent.id, copy(consent));
    },
    async revoke(userId, clientId, at) {
      const consent = active(ofPair(userId, clientId));
      if (!consent) return false;
      state.oauthConsents.set(consent.id, copy({ ...consent, revokedAt: at }));
      return true;
    },
  };
};
