import type { OAuthProviderCatalog } from "../model/oauth-providers.ts";

/**
 * The providers the domain's tests know, enabled or not: a few of GoTrue's, with LinkedIn also reached under its
 * OIDC flow's name. Nobody has heard of `myspace`. The server's list is the OAuth adapter's.
 */
export const testOAuthCatalog: OAuthProviderCatalog = {
  names: ["apple", "github", "gitlab", "google", "linkedin", "slack"],
  aliases: { linkedin_oidc: "linkedin", slack_oidc: "slack" },
};
