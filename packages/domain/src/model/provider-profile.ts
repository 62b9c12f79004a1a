import type { Metadata } from "./metadata.ts";

/** Tokens the provider issued, handed to the app as `provider_token` and `provider_refresh_token`. */
export interface ProviderTokens {
  readonly accessToken: string;
  readonly refreshToken: string | null;
}

/** Who signed in, as the provider says. */
export interface ProviderProfile {
  /** The person's id at the provider: `identities.provider_id`, and `sub` and `provider_id` in the claims. */
  readonly subject: string;
  /**
   * GoTrue's claims for `identity_data` and `user_metadata` (`iss`, `sub`, `provider_id`, `name`, `full_name`,
   * `avatar_url`, `picture`, `preferred_username`, `user_name`, `custom_claims`, ...). `email` and
   * `email_verified` are set by the flow, from the address it chooses among `emails`.
   */
  readonly claims: Metadata;
  /** Every address the provider reports, in its order. */
  readonly emails: readonly ProviderEmail[];
}

export interface ProviderEmail {
  readonly address: string;
  readonly verified: boolean;
  readonly primary: boolean;
}

/**
 * GoTrue's profile claims (its provider.Claims) that a provider's answer fills when it gives them as text: kept at
 * the top of identity_data and user_metadata.
 */
export const PROFILE_TEXT_CLAIMS = [
  "name",
  "family_name",
  "given_name",
  "middle_name",
  "nickname",
  "preferred_username",
  "profile",
  "picture",
  "website",
  "gender",
  "birthdate",
  "zoneinfo",
  "locale",
  "phone",
  "full_name",
  "avatar_url",
  "slug",
  "user_name",
] as const;
