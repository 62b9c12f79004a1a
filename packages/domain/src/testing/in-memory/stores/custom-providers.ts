import { AuthError } from "../../../errors.ts";
import type { CustomProvider } from "../../../model/custom-provider.ts";
import type { CustomProviderStore } from "../../../ports/stores.ts";
import { copy, type State } from "./state.ts";

/** Newest first; those made at the same instant by id, descending, as the database orders them. */
const newestFirst = (providers: readonly CustomProvider[]) =>
  [...providers].sort(
    (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
  );

/** Custom OAuth/OIDC providers over `state`, by id, each identifier held by one only. */
export const inMemoryCustomProviders = (state: State): CustomProviderStore => {
  const byIdentifier = (identifier: string) => {
    for (const provider of state.customProviders.values()) if (provider.identifier === identifier) return provider;
    return null;
  };

  return {
    async insert(provider) {
      if (state.customProviders.has(provider.id)) throw new Error(`duplicate custom provider id ${provider.id}`);
      if (byIdentifier(provider.identifier)) {
        throw new AuthError("conflict", "A custom OAuth provider with this identifier already exists");
      }
      state.customProviders.set(provider.id, copy(provider));
    },
    async findByIdentifier(identifier) {
      const provider = byIdentifier(identifier);
      return provider ? copy(provider) : null;
    },
    async list(filter = {}) {
      const { type } = filter;
      const providers = [...state.customProviders.values()].filter(
        (provider) => type === undefined || provider.providerType === type,
      );
      return newestFirst(providers).map(copy);
    },
    async count() {
      return state.customProviders.size;
    },
    async update(provider) {
      const before = state.customProviders.get(provider.id);
      if (!before) return false;
      state.customProviders.set(
        provider.id,
        copy({ ...provider, identifier: before.identifier, createdAt: before.createdAt }),
      );
      return true;
    },
    async delete(identifier) {
      const provider = byIdentifier(identifier);
      if (!provider) return false;
      state.customProviders.delete(provider.id);
      return true;
    },
  };
};
