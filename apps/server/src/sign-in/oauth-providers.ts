import {
  createOAuthProviders,
  OAUTH_PROVIDER_NAMES,
  type OAuthProviderName,
  type ProviderSettings,
} from "@latchkey/adapters-oauth";
import type { OAuthProvider } from "@latchkey/domain";
import type { OAuthFlowCookie } from "@latchkey/http-hono";
import type { Config } from "../config/index.ts";

/** The names of the providers EXTERNAL_<P>_ENABLED switches on (their required settings are checked at start). */
function enabledOAuthProviders(config: Config): OAuthProviderName[] {
  return OAUTH_PROVIDER_NAMES.filter((name) => config.external[name].enabled);
}

/** Where the provider sends the browser back: EXTERNAL_<P>_REDIRECT_URI, else API_EXTERNAL_URL's /callback. */
function redirectUriOf(config: Config, name: OAuthProviderName): string {
  return config.external[name].redirectUri ?? `${config.api.externalUrl}/callback`;
}

/**
 * The cookie that binds a sign-in to its browser: for the provider's callback path alone, `Secure` when the API is
 * served over https (a local http API would otherwise get no cookie back).
 */
export function oauthFlowCookie(config: Config): OAuthFlowCookie {
  return {
    secure: new URL(config.api.externalUrl).protocol === "https:",
    callbackPath: (provider) =>
      (OAUTH_PROVIDER_NAMES as readonly string[]).includes(provider)
        ? new URL(redirectUriOf(config, provider as OAuthProviderName)).pathname
        : "/",
  };
}

/** The enabled OAuth providers, each with its settings. */
export function createConfiguredOAuthProviders(config: Config): ReadonlyMap<string, OAuthProvider> {
  const enabled: Record<string, ProviderSettings> = {};
  for (const name of enabledOAuthProviders(config)) {
    const settings = config.external[name];
    enabled[name] = {
      clientIds: settings.clientId ?? [],
      secret: settings.secret ?? "",
      redirectUri: redirectUriOf(config, name),
      url: settings.url?.replace(/\/$/, ""),
      emailOptional: settings.emailOptional,
      skipNonceCheck: settings.skipNonceCheck,
    };
  }
  return createOAuthProviders(enabled);
}
