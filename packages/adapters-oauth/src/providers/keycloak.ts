import type { OAuthProviderStage, ProviderProfile } from "@latchkey/domain";
import { fieldsOf, getJson, providerFailure, stringOf } from "../http/provider-http.ts";
import { idTokenVerifier } from "../oidc/id-token-verifier.ts";
import { customClaims, onlyAddress, profileOf } from "../profile.ts";
import type { OAuth2Definition, ProviderContext } from "../provider-definition.ts";

/** EXTERNAL_KEYCLOAK_URL, the realm (`https://kc.example.com/realms/acme`): Keycloak has no default host. */
function realmOf(context: ProviderContext): string {
  const realm = context.settings.url;
  if (realm === undefined || realm === "") throw new Error("keycloak: EXTERNAL_KEYCLOAK_URL is required");
  return realm;
}

/** Claims read into GoTrue's keys, and an id_token's protocol claims, which are not the person's. */
const NOT_CUSTOM = new Set([
  "sub",
  "name",
  "email",
  "email_verified",
  "iss",
  "aud",
  "azp",
  "exp",
  "iat",
  "nbf",
  "auth_time",
  "jti",
  "typ",
  "nonce",
  "at_hash",
  "c_hash",
  "s_hash",
  "sid",
  "session_state",
  "acr",
  "amr",
]);

/**
 * A userinfo answer (or id_token) as GoTrue's claims: every claim it does not map (preferred_username,
 * given_name, groups, a realm's own mappers, ...) goes to `custom_claims`, as supabase/auth#1917 does.
 * `email_verified` must be a JSON boolean, as GoTrue's typed decoding requires.
 */
function keycloakProfile(
  realm: string,
  fields: Readonly<Record<string, unknown>>,
  stage: OAuthProviderStage,
): ProviderProfile {
  const subject = stringOf(fields["sub"]);
  if (subject === undefined) throw providerFailure("keycloak", stage, "answered a user without a sub");
  const verified = fields["email_verified"];
  if (verified !== undefined && typeof verified !== "boolean") {
    throw providerFailure("keycloak", stage, "answered an email_verified that is not a boolean", { verified });
  }
  const custom = Object.fromEntries(Object.entries(fields).filter(([key]) => !NOT_CUSTOM.has(key)));
  const name = stringOf(fields["name"]);
  return profileOf(
    subject,
    realm,
    { name, full_name: name, custom_claims: customClaims(custom) },
    onlyAddress(stringOf(fields["email"]), verified === true),
  );
}

/**
 * Keycloak: one realm under EXTERNAL_KEYCLOAK_URL (required). The profile comes from userinfo; the id_token of
 * the code flow is not read, as in GoTrue. The id_token grant accepts exactly the realm as issuer.
 */
export const keycloak: OAuth2Definition<"keycloak"> = {
  name: "keycloak",
  title: "Keycloak",
  settings: { url: { doc: "The realm's URL (`https://kc.example.com/realms/myrealm`).", required: true } },
  defaultScopes: ["profile", "email"],
  takesScopes: true,
  clientAuth: "basic",
  endpoints(context) {
    const realm = realmOf(context);
    return {
      authorization: `${realm}/protocol/openid-connect/auth`,
      token: `${realm}/protocol/openid-connect/token`,
    };
  },
  async profile(context, answer) {
    const realm = realmOf(context);
    const user = await getJson(context.fetch, "keycloak", {
      url: `${realm}/protocol/openid-connect/userinfo`,
      headers: { Authorization: `Bearer ${answer.accessToken}` },
    });
    return keycloakProfile(realm, fieldsOf(user), "profile");
  },
  idTokens(context) {
    // Made with the provider: a missing realm fails when the providers are built, not at the first sign-in.
    const realm = realmOf(context);
    return idTokenVerifier(context, {
      async keys(own) {
        const { jwks } = await own.discovery.endpoints(realm);
        return { jwksUri: jwks, issuer: realm };
      },
      profile: (claims) => keycloakProfile(realm, claims, "id_token"),
    });
  },
};
