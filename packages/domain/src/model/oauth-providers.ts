/** Every external provider Latchkey signs in with, by canonical name (GoTrue's list, and `x`). */
export const OAUTH_PROVIDER_NAMES = [
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
  "slack",
  "snapchat",
  "spotify",
  "twitch",
  "twitter",
  "workos",
  "x",
] as const;

export type OAuthProviderName = (typeof OAUTH_PROVIDER_NAMES)[number];

/** GoTrue's names of the OIDC flows of LinkedIn and Slack, which are the only ones Latchkey runs under either name. */
export const OAUTH_PROVIDER_ALIASES: Readonly<Partial<Record<OAuthProviderName, string>>> = {
  linkedin: "linkedin_oidc",
  slack: "slack_oidc",
};

const BY_ALIAS: ReadonlyMap<string, string> = new Map(
  Object.entries(OAUTH_PROVIDER_ALIASES).map(([name, alias]) => [alias, name]),
);

/**
 * The name a provider is stored and configured under: lower-cased (GoTrue stores what the client wrote, so
 * `GitHub` and `github` would be two identities), aliases resolved (docs/compatibility.md, OAuth sign-in).
 */
export function canonicalProvider(name: string): string {
  const lower = name.toLowerCase();
  return BY_ALIAS.get(lower) ?? lower;
}
