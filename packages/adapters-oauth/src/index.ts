export {
  createOAuthProviders,
  OAUTH_PROVIDER_NAMES,
  OAUTH_PROVIDERS,
  oauthProviderCatalog,
} from "./create-oauth-providers.ts";
export {
  type CustomProviderRuntimeOptions,
  createCustomProviderRuntime,
} from "./custom/custom-provider.ts";
export type { ProviderHttpOptions } from "./http/bounded-fetch.ts";
export type { ProviderFacts, ProviderSettings, SettingsQuirks } from "./provider-definition.ts";
export type { OAuthProviderName } from "./providers/index.ts";
