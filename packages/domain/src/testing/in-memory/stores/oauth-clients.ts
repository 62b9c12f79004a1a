import { oldestFirst } from "../../../model/oldest-first.ts";
import type { OAuthClientStore } from "../../../ports/stores.ts";
import { copy, type State } from "./state.ts";

/** The OAuth server's clients over `state`; deleted ones stay in the Map, and no method hands them out. */
export const inMemoryOAuthClients = (state: State): OAuthClientStore => {
  const live = () => [...state.oauthClients.values()].filter((client) => client.deletedAt === null);
  return {
    async insert(client) {
      if (state.oauthClients.has(client.id)) throw new Error(`duplicate OAuth client id ${client.id}`);
      state.oauthClients.set(client.id, copy(client));
    },
    async find(clientId) {
      const client = state.oauthClients.get(clientId);
      return client && client.deletedAt === null ? copy(client) : null;
    },
    async list() {
      // Newest first, ties by id descending: the reverse of the oldest-first order, as the database's ORDER BY.
      return oldestFirst(live()).reverse().map(copy);
    },
    async update(client) {
      const stored = state.oauthClients.get(client.id);
      if (!stored) return;
      // What a client is and when it came are fixed at registration.
      const { clientType, createdAt } = stored;
      state.oauthClients.set(client.id, copy({ ...client, clientType, createdAt }));
    },
  };
};
