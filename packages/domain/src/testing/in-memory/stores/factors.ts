import { AuthError } from "../../../errors.ts";
import type { Factor } from "../../../model/factor.ts";
import type { FactorStore } from "../../../ports/stores.ts";
import { deleteFactors } from "./cascades.ts";
import { copy, type State } from "./state.ts";

/** A factor's friendly name as its unique index compares it: PostgreSQL's trim(), which removes spaces only. */
const trimmedName = (factor: Factor) => factor.friendlyName?.replace(/^ +| +$/g, "") ?? "";

/** What the factors' partial unique indexes refuse, with GoTrue's answers. */
const assertFactorUnique = (state: State, factor: Factor) => {
  assertCredentialUnique(state, factor);
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

/** A WebAuthn credential belongs to one factor, whoever's it is: its id is unique across every user's factors. */
const assertCredentialUnique = (state: State, factor: Factor) => {
  const credentialId = factor.webauthn?.credentialId;
  if (credentialId === undefined) return;
  for (const other of state.factors.values()) {
    if (other.id !== factor.id && other.webauthn?.credentialId === credentialId) {
      throw new AuthError("webauthn_credential_exists", "This credential is already registered");
    }
  }
};

/** The factors and their challenges over `state`. */
export const inMemoryFactors = (state: State): FactorStore => ({
  async insert(factor) {
    if (!state.users.has(factor.userId)) throw new Error(`no user ${factor.userId}`);
    if (state.factors.has(factor.id)) throw new Error(`duplicate factor id ${factor.id}`);
    assertFactorUnique(state, factor);
    state.factors.set(factor.id, copy(factor));
  },
  async update(factor) {
    const stored = state.factors.get(factor.id);
    if (!stored || stored.userId !== factor.userId) return;
    // The mutable columns only: type, secret and creation stay as inserted.
    const { status, friendlyName, phone, lastTotpStep, webauthn, lastChallengedAt, updatedAt } = factor;
    const updated = { ...stored, status, friendlyName, phone, lastTotpStep, webauthn, lastChallengedAt, updatedAt };
    assertFactorUnique(state, updated);
    state.factors.set(factor.id, copy(updated));
  },
  async find(userId, factorId) {
    const factor = state.factors.get(factorId);
    return factor && factor.userId === userId ? copy(factor) : null;
  },
  async delete(userId, factorId) {
    return deleteFactors(state, (factor) => factor.id === factorId && factor.userId === userId) > 0;
  },
  async deleteAllOfUser(userId) {
    deleteFactors(state, (factor) => factor.userId === userId);
  },
  async deleteUnverified(userId, { type, phone, idleBefore, except }) {
    deleteFactors(
      state,
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
});
