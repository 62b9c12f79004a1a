import { createOAuthProviders, type ProviderSettings } from "@latchkey/adapters-oauth";
import { OAUTH_PROVIDER_NAMES, type OAuthProvider, type OAuthProviderName } from "@latchkey/domain";
import type { Config } from "../config/index.ts";

/** The names of the providers EXTERNAL_<P>_ENABLED switches on (their required settings are checked at start). */
export function enabledOAuthProviders(config: Config): OAuthProviderName[] {
  return OAUTH_PROVIDER_NAMES.filter((name) => config.external[name].enabled);
}

/** The enabled OAuth providers, each with its settings. */
export function createConfiguredOAuthProviders(config: Config): ReadonlyMap<string, OAuthProvider> {
  const enabled: Record<string, ProviderSettings> = {};
  for (const name of enabledOAuthProviders(config)) {
    const settings = config.external[name];
    enabled[name] = {
      clientIds: settings.clientId ?? [],
      secret: settings.secret ?? "",
      redirectUri: settings.redirectUri ?? `${config.api.externalUrl}/callback`,
      url: settings.url?.replace(/\/$/, ""),
      emailOptional: settings.emailOptional,
      skipNonceCheck: settings.skipNonceCheck,
    };
  }
  return createOAuthProviders(enabled);
}
