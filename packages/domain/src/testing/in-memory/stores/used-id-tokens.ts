import type { UsedIdTokenStore } from "../../../ports/stores.ts";
import type { State } from "./state.ts";

export const inMemoryUsedIdTokens = (state: State): UsedIdTokenStore => ({
  async remember(digest, expiresAt, now) {
    for (const [each, until] of state.usedIdTokens) if (until < now) state.usedIdTokens.delete(each);
    if (state.usedIdTokens.has(digest)) return false;
    state.usedIdTokens.set(digest, expiresAt);
    return true;
  },
});
