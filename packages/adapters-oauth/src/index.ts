export { createOAuthProviders, OAUTH_PROVIDER_NAMES } from "./create-oauth-providers.ts";
export type { ProviderHttpOptions } from "./http/bounded-fetch.ts";
export type { ProviderSettings } from "./provider-definition.ts";
