import type { ProviderProfile } from "@latchkey/domain";
import type { JWTPayload } from "jose";
import { providerFailure, stringOf } from "../http/provider-http.ts";
import { idTokenVerifier } from "../oidc/id-token-verifier.ts";
import { fullName, idTokenProfile, onlyAddress } from "../profile.ts";
import { baseUrl, type OAuth2Definition, type ProviderContext } from "../provider-definition.ts";

/** The issuer of LinkedIn's id_tokens, or EXTERNAL_LINKEDIN_URL: where discovery and the keys are read. */
function issuerOf(context: ProviderContext): string {
  return context.settings.url ?? "https://www.linkedin.com/oauth";
}

/**
 * LinkedIn sends `email_verified` as the string "true" or "false"; a JSON boolean is read too. Any other value
 * reads as unverified, where GoTrue fails the whole sign-in.
 */
function isVerified(value: unknown): boolean {
  return value === true || (typeof value === "string" && value.toLowerCase() === "true");
}

/** The id_token's claims as GoTrue's: `name` is built from the given and family names; no `full_name`. */
function linkedinProfile(claims: JWTPayload): ProviderProfile {
  const givenName = stringOf(claims["given_name"]);
  const familyName = stringOf(claims["family_name"]);
  return idTokenProfile(
    claims,
    {
      name: fullName(givenName, familyName),
      given_name: givenName,
      family_name: familyName,
      locale: stringOf(claims["locale"]),
      picture: stringOf(claims["picture"]),
    },
    onlyAddress(stringOf(claims["email"]), isVerified(claims["email_verified"])),
  );
}

/**
 * LinkedIn ("Sign In with LinkedIn using OpenID Connect", GoTrue's linkedin_oidc): the code flow on the `api.`
 * host, the client secret in the form body, and the profile only in the id_token, verified against the keys the
 * issuer's discovery names.
 */
export const linkedin: OAuth2Definition<"linkedin"> = {
  name: "linkedin",
  title: "LinkedIn",
  // GoTrue's name of LinkedIn's OIDC flow, the only one Latchkey runs under either name.
  alias: "linkedin_oidc",
  defaultScopes: ["openid", "email", "profile"],
  takesScopes: true,
  clientAuth: "post",
  endpoints(context) {
    const base = baseUrl(context, "https://api.linkedin.com");
    return { authorization: `${base}/oauth/v2/authorization`, token: `${base}/oauth/v2/accessToken` };
  },
  async profile(context, answer) {
    // GoTrue signs in with empty data here; without the token there is no one to sign in.
    if (answer.idToken === undefined) throw providerFailure("linkedin", "profile", "answered without an id_token");
    const discovered = await context.discovery.endpoints(issuerOf(context));
    const claims = await context.idTokenKeys.verify({
      provider: "linkedin",
      idToken: answer.idToken,
      jwksUri: discovered.jwks,
      issuer: discovered.issuer,
      audiences: context.settings.clientIds.slice(0, 1),
      accessToken: answer.accessToken,
    });
    return linkedinProfile(claims);
  },
  idTokens(context) {
    return idTokenVerifier(context, {
      async keys(own) {
        const issuer = issuerOf(own);
        const { jwks } = await own.discovery.endpoints(issuer);
        return { jwksUri: jwks, issuer };
      },
      profile: linkedinProfile,
    });
  },
};
