import type { OAuthProvider, OAuthProviderCatalog } from "@latchkey/domain";
import { boundedFetch, type ProviderHttpOptions } from "./http/bounded-fetch.ts";
import { oauth2Provider } from "./oauth2/oauth2-provider.ts";
import { createDiscovery } from "./oidc/discovery.ts";
import { createIdTokenKeys, type IdTokenKeys } from "./oidc/id-token.ts";
import type { ProviderContext, ProviderDefinition, ProviderFacts, ProviderSettings } from "./provider-definition.ts";
import { type OAuthProviderName, PROVIDERS } from "./providers/index.ts";

/** What the server and the domain know of each provider, in the order the settings list them. */
export const OAUTH_PROVIDERS: readonly ProviderFacts<OAuthProviderName>[] = PROVIDERS;

/** The canonical names of every provider this package knows. */
export const OAUTH_PROVIDER_NAMES: readonly OAuthProviderName[] = PROVIDERS.map((provider) => provider.name);

/** The domain's catalog of providers: these, and GoTrue's other names of them. */
export const oauthProviderCatalog: OAuthProviderCatalog = {
  names: OAUTH_PROVIDER_NAMES,
  aliases: Object.fromEntries(
    OAUTH_PROVIDERS.flatMap((provider) =>
      provider.alias === undefined ? [] : [[provider.alias, provider.name] as const],
    ),
  ),
};

const BY_NAME: ReadonlyMap<string, ProviderDefinition> = new Map(
  PROVIDERS.map((provider) => [provider.name, provider]),
);

/** What a provider's code works with; also for tests that make one provider from its definition. */
export function providerContext(
  name: string,
  settings: ProviderSettings,
  fetch: typeof globalThis.fetch,
  idTokenKeys: IdTokenKeys = createIdTokenKeys(fetch),
): ProviderContext {
  return { name, settings, fetch, discovery: createDiscovery(name, fetch), idTokenKeys };
}

/** A provider from its definition: the shared OAuth 2.0 code flow over its table, or its own flow. */
export function providerOf(definition: ProviderDefinition, context: ProviderContext): OAuthProvider {
  return "flow" in definition ? definition.flow(context) : oauth2Provider(definition, context);
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
    const definition = BY_NAME.get(name);
    if (!definition) throw new Error(`unknown OAuth provider ${name}`);
    providers.set(name, providerOf(definition, providerContext(name, settings, fetch, idTokenKeys)));
  }
  return providers;
}
