import { AuthError } from "../../../errors.ts";
import { oldestFirst } from "../../../model/oldest-first.ts";
import type { SsoProvider } from "../../../model/sso-provider.ts";
import type { SsoProviderStore } from "../../../ports/stores.ts";
import { copy, deleteWhere, type State } from "./state.ts";

/** SAML identity providers over `state`, refusing what the database's unique keys refuse. */
export const inMemorySsoProviders = (state: State): SsoProviderStore => {
  /** Throws as the database would when `provider` takes what another provider holds. */
  const refuseConflicts = (provider: SsoProvider) => {
    const domains = new Set(provider.domains.map((domain) => domain.toLowerCase()));
    for (const other of state.ssoProviders.values()) {
      if (other.id === provider.id) continue;
      if (other.saml.entityId === provider.saml.entityId) {
        throw new AuthError("saml_idp_already_exists", "SAML Identity Provider with this EntityID already exists");
      }
      if (other.domains.some((domain) => domains.has(domain))) {
        throw new AuthError("sso_domain_already_exists", "SSO Domain is already assigned to an SSO identity provider");
      }
      const resourceId = provider.resourceId?.toLowerCase();
      if (resourceId !== undefined && other.resourceId?.toLowerCase() === resourceId) {
        throw new AuthError("validation_failed", "resource_id is already used by another SSO provider");
      }
    }
  };
  /** As stored: domains lowercased, in order. */
  const stored = (provider: SsoProvider): SsoProvider =>
    copy({ ...provider, domains: [...new Set(provider.domains.map((domain) => domain.toLowerCase()))].sort() });
  const found = (matches: (provider: SsoProvider) => boolean) => {
    for (const provider of state.ssoProviders.values()) if (matches(provider)) return copy(provider);
    return null;
  };

  return {
    async insert(provider) {
      if (state.ssoProviders.has(provider.id)) throw new Error(`duplicate SSO provider id ${provider.id}`);
      refuseConflicts(provider);
      state.ssoProviders.set(provider.id, stored(provider));
    },
    async find(id) {
      return found((provider) => provider.id === id);
    },
    async findByResourceId(resourceId) {
      return found((provider) => provider.resourceId === resourceId);
    },
    async findByDomain(domain) {
      const wanted = domain.toLowerCase();
      return found((provider) => provider.domains.includes(wanted));
    },
    async findByEntityId(entityId) {
      return found((provider) => provider.saml.entityId === entityId);
    },
    async list(filter = {}) {
      const { resourceId, resourceIdPrefix } = filter;
      const matches = (provider: SsoProvider) =>
        resourceId !== undefined
          ? provider.resourceId === resourceId
          : resourceIdPrefix === undefined || (provider.resourceId?.startsWith(resourceIdPrefix) ?? false);
      return oldestFirst([...state.ssoProviders.values()].filter(matches)).map(copy);
    },
    async update(provider) {
      const before = state.ssoProviders.get(provider.id);
      if (!before) return false;
      refuseConflicts(provider);
      state.ssoProviders.set(provider.id, stored({ ...provider, createdAt: before.createdAt }));
      return true;
    },
    async delete(id) {
      if (!state.ssoProviders.delete(id)) return false;
      // Its sign-ins waiting at the ACS go with it (ON DELETE CASCADE in the database).
      deleteWhere(state.samlRelayStates, (relayState) => relayState.ssoProviderId === id);
      return true;
    },
  };
};
