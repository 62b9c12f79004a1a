import type { Deps } from "../../deps.ts";
import type { OAuthClient } from "../../model/oauth-client.ts";
import { isEmailConfirmed, isPhoneConfirmed, type User } from "../../model/user.ts";

/** An id_token lives an hour, as GoTrue's (OIDC leaves it to the server). */
const ID_TOKEN_SECONDS = 3600;

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * The OpenID Connect id_token of a code exchanged with `openid` granted, as GoTrue makes it: for the client (its
 * `aud`), with the request's nonce, and the user's claims of each scope granted: `email`, `phone`, `profile`.
 * Signed with the ring's key, which the client verifies through the JWKS (the authorization refuses `openid`
 * without one).
 */
export function idTokenFor(
  deps: Deps,
  { user, client, nonce, scopes }: { user: User; client: OAuthClient; nonce: string | null; scopes: readonly string[] },
): Promise<string> {
  const now = deps.clock.now();
  const iat = seconds(now);
  return deps.signer.sign({
    iss: deps.policy.accessToken.issuer,
    sub: user.id,
    aud: client.id,
    iat,
    exp: iat + ID_TOKEN_SECONDS,
    auth_time: seconds(user.lastSignInAt ?? now),
    client_id: client.id,
    ...(nonce ? { nonce } : {}),
    ...(scopes.includes("email") ? { email: user.email ?? "", email_verified: isEmailConfirmed(user) } : {}),
    ...(scopes.includes("phone")
      ? { phone_number: user.phone ?? "", phone_number_verified: isPhoneConfirmed(user) }
      : {}),
    ...(scopes.includes("profile") ? profileClaims(user) : {}),
  });
}

/** OIDC's profile claims from user_metadata, as GoTrue reads them (name falls back to the email). */
export function profileClaims(user: User): Record<string, unknown> {
  const meta = user.userMetadata;
  const text = (key: string) => (typeof meta[key] === "string" && meta[key] !== "" ? (meta[key] as string) : null);
  const name = text("name") ?? user.email;
  const picture = text("picture") ?? text("avatar_url");
  const username = text("preferred_username") ?? text("username");
  return {
    ...(name ? { name } : {}),
    ...(picture ? { picture } : {}),
    ...(username ? { preferred_username: username } : {}),
    updated_at: seconds(user.updatedAt),
  };
}
