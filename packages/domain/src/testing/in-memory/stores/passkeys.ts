import { AuthError } from "../../../errors.ts";
import { oldestFirst } from "../../../model/oldest-first.ts";
import type { PasskeyStore } from "../../../ports/stores.ts";
import { copy, type State } from "./state.ts";

/** The passkeys over `state`; a credential id is unique among them, as its unique index makes it in the database. */
export const inMemoryPasskeys = (state: State): PasskeyStore => {
  const ofUser = (userId: string) => [...state.passkeys.values()].filter((passkey) => passkey.userId === userId);
  return {
    async insert(passkey) {
      if (!state.users.has(passkey.userId)) throw new Error(`no user ${passkey.userId}`);
      if (state.passkeys.has(passkey.id)) throw new Error(`duplicate passkey id ${passkey.id}`);
      for (const other of state.passkeys.values()) {
        if (other.credentialId === passkey.credentialId) {
          throw new AuthError("webauthn_credential_exists", "This credential is already registered");
        }
      }
      state.passkeys.set(passkey.id, copy(passkey));
    },
    async listOfUser(userId) {
      return oldestFirst(ofUser(userId)).map(copy);
    },
    async countOfUser(userId) {
      return ofUser(userId).length;
    },
    async find(userId, passkeyId) {
      const passkey = state.passkeys.get(passkeyId);
      return passkey && passkey.userId === userId ? copy(passkey) : null;
    },
    async findByCredentialId(credentialId) {
      // Transactions run one at a time here: `forUpdate` needs nothing more.
      const passkey = [...state.passkeys.values()].find((each) => each.credentialId === credentialId);
      return passkey ? copy(passkey) : null;
    },
    async recordUse(passkey) {
      const stored = state.passkeys.get(passkey.id);
      if (!stored || stored.userId !== passkey.userId) return;
      const { signCount, backedUp, lastUsedAt, updatedAt } = passkey;
      state.passkeys.set(passkey.id, copy({ ...stored, signCount, backedUp, lastUsedAt, updatedAt }));
    },
    async rename(passkey) {
      const stored = state.passkeys.get(passkey.id);
      if (!stored || stored.userId !== passkey.userId) return;
      const { friendlyName, updatedAt } = passkey;
      state.passkeys.set(passkey.id, copy({ ...stored, friendlyName, updatedAt }));
    },
    async delete(userId, passkeyId) {
      const passkey = state.passkeys.get(passkeyId);
      if (!passkey || passkey.userId !== userId) return false;
      return state.passkeys.delete(passkeyId);
    },
  };
};
