import type { ProviderProfile } from "@latchkey/domain";
import type { JWTPayload } from "jose";
import { claimsOf, fieldsOf, providerFailure, stringOf } from "../http/provider-http.ts";
import type { OidcEndpoints } from "../oidc/discovery.ts";
import { idTokenVerifier } from "../oidc/id-token-verifier.ts";
import { customClaims, fullName, idTokenProfile, onlyAddress } from "../profile.ts";
import type { OAuth2Definition, ProviderContext } from "../provider-definition.ts";

/** Apple signs id_tokens as either issuer (the second since its account.apple.com rename). */
const APPLE_ISSUERS: readonly string[] = ["https://appleid.apple.com", "https://account.apple.com"];

/** The issuer whose discovery gives Apple's endpoints and keys: appleid.apple.com, or EXTERNAL_APPLE_URL. */
function discoveryIssuer(context: ProviderContext): string {
  return context.settings.url ?? "https://appleid.apple.com";
}

/** Apple's two issuers when discovery is Apple's own; under an override, the one its discovery names. */
function acceptedIssuers(endpoints: OidcEndpoints): readonly string[] {
  return APPLE_ISSUERS.includes(endpoints.issuer) ? APPLE_ISSUERS : [endpoints.issuer];
}

interface AppleName {
  readonly given: string | undefined;
  readonly family: string | undefined;
}

/** A name part, trimmed; a blank one counts as absent, so that a name is never stored empty. */
function namePart(value: unknown): string | undefined {
  return stringOf(value)?.trim() || undefined;
}

/**
 * The name in the callback's `user` field (`{"name":{"firstName","lastName"},"email"}`), which Apple posts on
 * the first authorization only and which no id_token carries. It is unsigned and only a name: unreadable, it is
 * ignored rather than failing the sign-in. Its `email` is not used; the id_token's is the one Apple vouches for.
 */
function callbackName(user: string | undefined): AppleName | undefined {
  if (user === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(user);
  } catch {
    return undefined;
  }
  const name = fieldsOf(fieldsOf(parsed)["name"]);
  return { given: namePart(name["firstName"]), family: namePart(name["lastName"]) };
}

/** Apple sends `is_private_email` as a boolean or as the string "true"/"false"; GoTrue stores the boolean. */
function privateEmail(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "false") return value === "true";
  return undefined;
}

/** A verified id_token as Apple's profile; the name only when the callback brought one. */
function appleProfile(claims: JWTPayload, name?: AppleName): ProviderProfile {
  const authTime = claims["auth_time"];
  const custom = claimsOf({
    is_private_email: privateEmail(claims["is_private_email"]),
    auth_time: typeof authTime === "number" ? authTime : undefined,
    transfer_sub: stringOf(claims["transfer_sub"]),
  });
  const full = fullName(name?.given, name?.family);
  return idTokenProfile(
    claims,
    {
      name: full,
      full_name: full,
      given_name: name?.given,
      family_name: name?.family,
      custom_claims: customClaims(custom),
    },
    // Apple only hands out addresses it has verified (relay addresses included). GoTrue adds an entry even for
    // an empty email; no entry is the honest answer, and EMAIL_OPTIONAL decides what follows.
    onlyAddress(stringOf(claims["email"]), true),
  );
}

/** Discovery for the id_token grant: when it cannot be read, the grant fails, at its own stage. */
async function grantEndpoints(context: ProviderContext): Promise<OidcEndpoints> {
  try {
    return await context.discovery.endpoints(discoveryIssuer(context));
  } catch (error) {
    throw providerFailure(context.name, "id_token", "its OpenID configuration could not be read", error);
  }
}

/**
 * Sign in with Apple: endpoints and keys from discovery, a form_post callback, no scopes but its own, the
 * pre-signed client-secret JWT (EXTERNAL_APPLE_SECRET) sent as is in the form (client_secret_post, which also
 * carries `client_id`, as Apple requires). The profile is the id_token of the token answer; the name comes from
 * the callback's `user` field, the first time only.
 */
export const apple: OAuth2Definition<"apple"> = {
  name: "apple",
  title: "Apple",
  settings: { secret: "The client secret: the signed ES256 JWT Apple's docs describe." },
  defaultScopes: ["email", "name"],
  takesScopes: false,
  clientAuth: "post",
  // Apple requires form_post when `name` or `email` is asked for.
  authorizeParams: [["response_mode", "form_post"]],
  async endpoints(context) {
    const endpoints = await context.discovery.endpoints(discoveryIssuer(context));
    return { authorization: endpoints.authorization, token: endpoints.token };
  },
  async profile(context, answer, callback) {
    if (answer.idToken === undefined) throw providerFailure("apple", "profile", "answered without an id_token");
    const endpoints = await context.discovery.endpoints(discoveryIssuer(context));
    const claims = await context.idTokenKeys.verify({
      provider: "apple",
      idToken: answer.idToken,
      jwksUri: endpoints.jwks,
      issuer: acceptedIssuers(endpoints),
      // The code flow's token is for the client that asked for it.
      audiences: context.settings.clientIds.slice(0, 1),
      accessToken: answer.accessToken,
    });
    return appleProfile(claims, callbackName(callback.params["user"]));
  },
  idTokens(context) {
    // Native apps' tokens carry the app's bundle id as audience: EXTERNAL_IOS_BUNDLE_ID, once it is a setting,
    // goes to `extraAudiences` here.
    return idTokenVerifier(context, {
      async keys() {
        const endpoints = await grantEndpoints(context);
        return { jwksUri: endpoints.jwks, issuer: acceptedIssuers(endpoints) };
      },
      profile: (claims) => appleProfile(claims),
    });
  },
};
