import type { OAuthProvider } from "@latchkey/domain";
import { boundedFetch, type ProviderHttpOptions } from "./http/bounded-fetch.ts";
import { createDiscovery } from "./oidc/discovery.ts";
import { createIdTokenKeys, type IdTokenKeys } from "./oidc/id-token.ts";
import type { ProviderContext, ProviderSettings } from "./provider-definition.ts";
import { PROVIDERS } from "./providers/index.ts";

/** The canonical names of every provider this package knows. */
export const OAUTH_PROVIDER_NAMES: readonly string[] = Object.keys(PROVIDERS);

/** What a provider's code works with; also for tests that make one provider from its factory. */
export function providerContext(
  name: string,
  settings: ProviderSettings,
  fetch: typeof globalThis.fetch,
  idTokenKeys: IdTokenKeys = createIdTokenKeys(fetch),
): ProviderContext {
  return { name, settings, fetch, discovery: createDiscovery(name, fetch), idTokenKeys };
}

/** The enabled providers, by canonical name, each with its settings. */
export function createOAuthProviders(
  enabled: Readonly<Record<string, ProviderSettings>>,
  http: ProviderHttpOptions = {},
): ReadonlyMap<string, OAuthProvider> {
  const fetch = boundedFetch(http);
  const idTokenKeys = createIdTokenKeys(fetch);
  const providers = new Map<string, OAuthProvider>();
  for (const [name, settings] of Object.entries(enabled)) {
    const factory = PROVIDERS[name];
    if (!factory) throw new Error(`unknown OAuth provider ${name}`);
    providers.set(name, factory(providerContext(name, settings, fetch, idTokenKeys)));
  }
  return providers;
}
