import type { SamlRelayStateStore } from "../../../ports/stores.ts";
import { copy, type State } from "./state.ts";

/** SAML sign-ins waiting at the ACS, each taken once; they go with their provider (sso-providers.ts). */
export const inMemorySamlRelayStates = (state: State): SamlRelayStateStore => ({
  async insert(relayState) {
    if (!state.ssoProviders.has(relayState.ssoProviderId)) {
      throw new Error(`no SSO provider ${relayState.ssoProviderId}`);
    }
    if (state.samlRelayStates.has(relayState.id)) throw new Error(`duplicate SAML relay state id ${relayState.id}`);
    state.samlRelayStates.set(relayState.id, copy(relayState));
  },
  async take(id) {
    const relayState = state.samlRelayStates.get(id);
    if (!relayState) return null;
    state.samlRelayStates.delete(id);
    return copy(relayState);
  },
});
