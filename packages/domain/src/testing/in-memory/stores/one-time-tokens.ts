import type { OneTimeTokenStore } from "../../../ports/stores.ts";
import { copy, type State } from "./state.ts";

export const inMemoryOneTimeTokens = (state: State): OneTimeTokenStore => ({
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
});
