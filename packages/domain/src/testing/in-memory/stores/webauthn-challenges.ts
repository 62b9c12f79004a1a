import type { WebAuthnChallengeStore } from "../../../ports/stores.ts";
import { copy, deleteWhere, type State } from "./state.ts";

/** Passkey ceremonies begun, each taken once. */
export const inMemoryWebAuthnChallenges = (state: State): WebAuthnChallengeStore => ({
  async insert(challenge, now) {
    if (challenge.userId !== null && !state.users.has(challenge.userId)) throw new Error(`no user ${challenge.userId}`);
    if (state.webauthnChallenges.has(challenge.id)) throw new Error(`duplicate challenge id ${challenge.id}`);
    // The database forgets a bounded number per insert; here all of them go, which no test can tell apart.
    deleteWhere(state.webauthnChallenges, (other) => other.expiresAt < now);
    state.webauthnChallenges.set(challenge.id, copy(challenge));
  },
  async take(id, ceremony, userId) {
    const challenge = state.webauthnChallenges.get(id);
    if (!challenge || challenge.ceremony !== ceremony || challenge.userId !== userId) return null;
    state.webauthnChallenges.delete(id);
    return copy(challenge);
  },
});
