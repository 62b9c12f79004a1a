import { presentUser, type SessionGrant } from "@latchkey/domain";

/** The token response: the specification's fields plus `expires_at` and `user`, which auth-js reads (docs/compatibility.md). */
export function presentSession(grant: SessionGrant) {
  return {
    access_token: grant.accessToken,
    token_type: grant.tokenType,
    expires_in: grant.expiresIn,
    expires_at: grant.expiresAt,
    refresh_token: grant.refreshToken,
    user: presentUser(grant.user),
    // After an OAuth sign-in's PKCE exchange: the provider's tokens, for the app to call the provider with.
    ...(grant.providerTokens ? { provider_token: grant.providerTokens.accessToken } : {}),
    ...(grant.providerTokens?.refreshToken ? { provider_refresh_token: grant.providerTokens.refreshToken } : {}),
    ...(grant.weakPassword ? { weak_password: grant.weakPassword } : {}),
  };
}
