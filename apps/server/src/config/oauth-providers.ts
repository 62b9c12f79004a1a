/** The external OAuth 2.0 providers of the specification; each is configured by EXTERNAL_<NAME>_*. */
export const OAUTH_PROVIDERS = [
  "apple",
  "azure",
  "bitbucket",
  "discord",
  "facebook",
  "figma",
  "github",
  "gitlab",
  "google",
  "keycloak",
  "linkedin",
  "notion",
  "snapchat",
  "spotify",
  "slack",
  "twitch",
  "twitter",
  "workos",
] as const;

export type OAuthProviderName = (typeof OAUTH_PROVIDERS)[number];

export type OAuthProviderKey = Uppercase<OAuthProviderName>;

export function providerKey(provider: OAuthProviderName): OAuthProviderKey {
  return provider.toUpperCase() as OAuthProviderKey;
}

/** The specification's only provider defaults: gitlab.com, and keycloak, which has no public instance, needs its realm URL. */
export const PROVIDER_DEFAULT_URLS: Partial<Record<OAuthProviderName, string>> = { gitlab: "https://gitlab.com" };
export const PROVIDERS_REQUIRING_URL: readonly OAuthProviderName[] = ["keycloak"];
