import { createHmac } from "node:crypto";
import type { ProviderProfile } from "@latchkey/domain";
import type { JWTPayload } from "jose";
import { fieldsOf, getJson, idOf, providerFailure, stringOf } from "../http/provider-http.ts";
import { idTokenVerifier } from "../oidc/id-token-verifier.ts";
import { fullName, onlyAddress, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition, type ProviderContext } from "../provider-definition.ts";

/** The Graph API, where the token and the profile are; EXTERNAL_FACEBOOK_URL replaces its host. */
function graphUrl(context: ProviderContext): string {
  return baseUrl(context, "https://graph.facebook.com");
}

/** The profile request without its proof: also the `iss` GoTrue stores. */
function profileUrl(context: ProviderContext): string {
  return `${graphUrl(context)}/me?fields=email,first_name,last_name,name,picture`;
}

/** "first last", each part trimmed, leaving out a missing or blank one; undefined when both are. */
function firstLast(first: unknown, last: unknown): string | undefined {
  return fullName(stringOf(first)?.trim(), stringOf(last)?.trim());
}

/** What both sign-ins read of the person; Graph's /me and a Limited Login token name them differently. */
interface FacebookPerson {
  readonly name: string | undefined;
  /** Facebook's `name`, GoTrue's `nickname` and `slug`. */
  readonly alias: string | undefined;
  readonly picture: string | undefined;
  readonly email: string | undefined;
}

/** The person as GoTrue's claims; the address, the account's primary one, counts as verified, as in GoTrue. */
function facebookProfile(subject: string, iss: unknown, person: FacebookPerson): ProviderProfile {
  const { name, alias, picture, email } = person;
  return profileOf(
    subject,
    iss,
    { name, full_name: name, nickname: alias, slug: alias, avatar_url: picture, picture },
    // No email when the person declined the permission or signed up with a phone number.
    onlyAddress(email, true),
  );
}

/** Limited Login's issuer: www.facebook.com, or EXTERNAL_FACEBOOK_URL. */
function limitedLoginIssuer(context: ProviderContext): string {
  return context.settings.url ?? "https://www.facebook.com";
}

/**
 * Where Limited Login's OpenID configuration is: Facebook publishes it with a trailing `/`, which the shared
 * discovery (and its redirect-free fetch) cannot reach, so it is read here.
 */
function limitedLoginConfiguration(context: ProviderContext): string {
  const url = context.settings.url;
  return url === undefined
    ? "https://www.facebook.com/.well-known/openid-configuration/"
    : `${url}/.well-known/openid-configuration`;
}

/** GoTrue's EXTERNAL_OIDC_PROVIDER_CACHE_TTL default, as the shared discovery uses. */
const CONFIGURATION_TTL_MS = 60 * 60 * 1000;

/**
 * Limited Login's keys, read from its OpenID configuration (which must name the issuer we expect) once an hour;
 * when a refresh fails, the last good answer serves.
 */
function limitedLoginKeys(context: ProviderContext): () => Promise<{ jwksUri: string; issuer: string }> {
  let cached: { keys: { jwksUri: string; issuer: string }; fetchedAt: number } | undefined;
  return async () => {
    if (cached && Date.now() - cached.fetchedAt < CONFIGURATION_TTL_MS) return cached.keys;
    const issuer = limitedLoginIssuer(context);
    try {
      const configuration = fieldsOf(
        await getJson(context.fetch, "facebook", {
          url: limitedLoginConfiguration(context),
          headers: {},
          stage: "id_token",
        }),
      );
      const jwksUri = stringOf(configuration["jwks_uri"]);
      if (configuration["issuer"] !== issuer || jwksUri === undefined) {
        throw providerFailure("facebook", "id_token", "its OpenID configuration is not its own", {
          issuer: configuration["issuer"],
        });
      }
      cached = { keys: { jwksUri, issuer }, fetchedAt: Date.now() };
      return cached.keys;
    } catch (error) {
      if (cached) return cached.keys;
      throw error;
    }
  };
}

/**
 * A Limited Login token as the profile the code flow gives the same person (GoTrue keeps only `name` and
 * `picture`): a token sign-in then leaves the same keys in user_metadata as a code-flow one.
 */
function limitedLoginProfile(claims: JWTPayload): ProviderProfile {
  const alias = stringOf(claims["name"]);
  // The verifier refuses a token without `sub`.
  return facebookProfile(claims.sub ?? "", claims.iss, {
    name: firstLast(claims["given_name"], claims["family_name"]) ?? alias,
    alias,
    picture: stringOf(claims["picture"]),
    email: stringOf(claims["email"]),
  });
}

/**
 * Facebook Login: the dialog on www.facebook.com, the token and /me on the Graph API (no version pinned, as
 * GoTrue). Every Graph call carries `appsecret_proof`, the HMAC-SHA256 of the access token keyed with the app
 * secret, so that a stolen token cannot be used without the secret. The email (the account's primary one, absent
 * when Facebook has no valid address) counts as verified, as in GoTrue. The id_token grant takes Limited Login
 * tokens, whose nonce is not checked.
 */
export const facebook: OAuth2Definition<"facebook"> = {
  name: "facebook",
  title: "Facebook",
  defaultScopes: ["email"],
  takesScopes: true,
  clientAuth: "post",
  endpoints(context) {
    return {
      authorization: `${baseUrl(context, "https://www.facebook.com")}/dialog/oauth`,
      token: `${graphUrl(context)}/oauth/access_token`,
    };
  },
  async profile(context, answer) {
    const proof = createHmac("sha256", context.settings.secret).update(answer.accessToken).digest("hex");
    const url = profileUrl(context);
    const me = fieldsOf(
      await getJson(context.fetch, "facebook", {
        url: `${url}&appsecret_proof=${proof}`,
        headers: { Authorization: `Bearer ${answer.accessToken}` },
      }),
    );
    return facebookProfile(requiredSubject("facebook", idOf(me["id"])), url, {
      name: firstLast(me["first_name"], me["last_name"]),
      alias: stringOf(me["name"]),
      picture: stringOf(fieldsOf(fieldsOf(me["picture"])["data"])["url"]),
      email: stringOf(me["email"]),
    });
  },
  idTokens(context) {
    return idTokenVerifier(context, {
      keys: limitedLoginKeys(context),
      profile: limitedLoginProfile,
      alwaysSkipNonce: true,
    });
  },
};
