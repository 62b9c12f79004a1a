import { AuthError } from "../../../errors.ts";
import { type Identity, identityEmail } from "../../../model/identity.ts";
import type { IdentityStore } from "../../../ports/stores.ts";
import { deleteIdentities } from "./cascades.ts";
import { copy, type State } from "./state.ts";

/** Inserts the identity, or updates the one of its provider subject; refuses one linked to another user. */
export const saveIdentity = (state: State, identity: Identity) => {
  if (!state.users.has(identity.userId)) throw new Error(`no user ${identity.userId}`);
  const same = [...state.identities.values()].find(
    (other) => other.provider === identity.provider && other.providerId === identity.providerId,
  );
  if (same && same.userId !== identity.userId) {
    throw new AuthError("identity_already_exists", "Identity is already linked to another user");
  }
  state.identities.set(same?.id ?? identity.id, copy({ ...identity, id: same?.id ?? identity.id }));
};

export const inMemoryIdentities = (state: State): IdentityStore => ({
  async save(identity) {
    saveIdentity(state, identity);
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
    return deleteIdentities(state, (identity) => identity.id === identityId && identity.userId === userId) > 0;
  },
  async deleteAllOfUser(userId) {
    deleteIdentities(state, (identity) => identity.userId === userId);
  },
});
