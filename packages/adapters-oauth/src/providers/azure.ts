import type { IdTokenVerifier, ProviderProfile } from "@latchkey/domain";
import { decodeJwt, type JWTPayload } from "jose";
import { providerFailure, stringOf } from "../http/provider-http.ts";
import { idTokenVerifier } from "../oidc/id-token-verifier.ts";
import { customClaims, idTokenProfile, onlyAddress } from "../profile.ts";
import type { OAuth2Definition, ProviderContext } from "../provider-definition.ts";

const MICROSOFT = "https://login.microsoftonline.com";
/** The tenant of personal Microsoft accounts: the issuer of every token the `/consumers` authority issues. */
const CONSUMERS_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad";
/** Authorities that sign in users of any tenant; tokens carry the user's tenant as issuer. */
const MULTI_TENANT = ["common", "organizations"];

/** The authority: EXTERNAL_AZURE_URL (a tenant, an alias, a CIAM or sovereign-cloud host), else /common. */
function authority(context: ProviderContext): string {
  return context.settings.url ?? `${MICROSOFT}/common`;
}

/**
 * A v2.0 tenant issuer, `<origin>/<tenant>/v2.0`, at an origin that issues Azure tokens: Microsoft's, a CIAM
 * tenant's `<sub>.ciamlogin.com`, or EXTERNAL_AZURE_URL's own (a sovereign cloud, a B2C host, a stand-in).
 */
function isTenantIssuer(context: ProviderContext, iss: string): boolean {
  const match = /^(https?:\/\/[^/?#]+)\/[\w.-]+\/v2\.0\/?$/.exec(iss);
  const origin = match?.[1];
  if (origin === undefined) return false;
  if (origin === MICROSOFT || /^https:\/\/[a-z0-9-]+\.ciamlogin\.com$/i.test(origin)) return true;
  return context.settings.url !== undefined && origin === new URL(context.settings.url).origin;
}

/**
 * The only issuer the configured authority's tokens may carry, or undefined when any tenant may sign in. A
 * tenant authority pins `<URL>/v2.0`; `/common` and `/organizations` pin nothing; `/consumers` pins the
 * consumers tenant (GoTrue pins `…/consumers/v2.0`, which no token carries). A URL of another shape (B2C's
 * `<host>/<tenant>/<policy>`) pins nothing, as in GoTrue; its tokens are still held to the issuer patterns.
 */
function pinnedIssuer(context: ProviderContext): string | undefined {
  const url = context.settings.url;
  if (url === undefined || !isTenantIssuer(context, `${url}/v2.0`)) return undefined;
  const cut = url.lastIndexOf("/");
  const tenant = url.slice(cut + 1).toLowerCase();
  if (MULTI_TENANT.includes(tenant)) return undefined;
  return tenant === "consumers" ? `${url.slice(0, cut)}/${CONSUMERS_TENANT}/v2.0` : `${url}/v2.0`;
}

/** The `iss` of a token not yet verified: read only to choose whose keys verify it. */
function unverifiedIssuer(provider: string, idToken: string): string {
  let iss: unknown;
  try {
    iss = decodeJwt(idToken).iss;
  } catch (error) {
    throw providerFailure(provider, "id_token", "its id_token is not valid", error);
  }
  if (typeof iss !== "string") throw providerFailure(provider, "id_token", "its id_token has no issuer");
  return iss;
}

/**
 * The keys of the token's issuer, from that issuer's discovery. The issuer is checked first, so that a token
 * cannot send us to fetch from a host of its choosing.
 */
async function issuerKeys(
  context: ProviderContext,
  idToken: string,
  accepts: (iss: string) => boolean,
): Promise<{ jwksUri: string; issuer: string }> {
  const iss = unverifiedIssuer(context.name, idToken);
  if (!accepts(iss)) throw providerFailure(context.name, "id_token", "its id_token has another issuer", { iss });
  try {
    const endpoints = await context.discovery.endpoints(iss);
    return { jwksUri: endpoints.jwks, issuer: iss };
  } catch (error) {
    throw providerFailure(context.name, "id_token", "its OpenID configuration could not be read", error);
  }
}

/** Claims that are the token's mechanics or mapped to keys of their own; every other claim is a custom one. */
const NOT_CUSTOM = new Set([
  "aud",
  "iss",
  "iat",
  "nbf",
  "exp",
  "c_hash",
  "at_hash",
  "aio",
  "nonce",
  "rh",
  "uti",
  "jti",
  "ver",
  "sub",
  "name",
  "preferred_username",
]);

/**
 * Azure reports `email` without saying it was verified; `xms_edov` (when the app asks for it) says whether the
 * domain owner verified it, as a boolean or as "1"/"true". security: without it, the address counts as verified
 * only when EXTERNAL_AZURE_URL pins one tenant, whose admins the operator chose to trust; under a multi-tenant
 * authority any tenant's admin sets any address on its users (GoTrue trusts it there too).
 */
function emailVerified(edov: unknown, singleTenant: boolean): boolean {
  if (edov === undefined || edov === null) return singleTenant;
  return edov === true || edov === "1" || edov === "true";
}

/** A verified id_token as the profile; CIAM tokens read the same way (GoTrue reads them as generic OIDC). */
const azureProfile =
  (context: ProviderContext) =>
  (claims: JWTPayload): ProviderProfile => {
    const custom = Object.fromEntries(Object.entries(claims).filter(([key]) => !NOT_CUSTOM.has(key)));
    return idTokenProfile(
      claims,
      {
        full_name: stringOf(claims["name"]),
        preferred_username: stringOf(claims["preferred_username"]),
        custom_claims: customClaims(custom),
      },
      onlyAddress(stringOf(claims["email"]), emailVerified(claims["xms_edov"], pinnedIssuer(context) !== undefined)),
    );
  };

/** The id_token grant's issuers: Microsoft's v2.0 and v1 hosts, or EXTERNAL_AZURE_URL's origin. */
function isGrantIssuer(context: ProviderContext, iss: string): boolean {
  const prefixes = [`${MICROSOFT}/`, "https://sts.windows.net/"];
  if (context.settings.url !== undefined) prefixes.push(`${new URL(context.settings.url).origin}/`);
  return prefixes.some((prefix) => iss.startsWith(prefix));
}

/**
 * Microsoft Entra ID (Azure AD) v2.0: the profile is the id_token only (no Graph or UserInfo call), verified
 * with the keys of its own tenant's discovery. The default scope is `openid` alone: apps add `email profile`.
 */
export const azure: OAuth2Definition<"azure"> = {
  name: "azure",
  title: "Azure (Microsoft Entra ID)",
  defaultScopes: ["openid"],
  takesScopes: true,
  clientAuth: "basic",
  endpoints(context) {
    const base = authority(context);
    return { authorization: `${base}/oauth2/v2.0/authorize`, token: `${base}/oauth2/v2.0/token` };
  },
  async profile(context, answer) {
    if (answer.idToken === undefined) throw providerFailure("azure", "profile", "answered without an id_token");
    const pinned = pinnedIssuer(context);
    const keys = await issuerKeys(context, answer.idToken, (iss) =>
      pinned !== undefined ? iss === pinned : isTenantIssuer(context, iss),
    );
    const claims = await context.idTokenKeys.verify({
      provider: "azure",
      idToken: answer.idToken,
      ...keys,
      audiences: context.settings.clientIds.slice(0, 1),
      accessToken: answer.accessToken,
    });
    return azureProfile(context)(claims);
  },
  idTokens(context): IdTokenVerifier {
    // The keys depend on the token's own issuer, which the shared verifier's `keys` is not given: a verifier is
    // made per token, once its issuer is known and accepted.
    return {
      skipNonceCheck: context.settings.skipNonceCheck,
      async verify(input) {
        const keys = await issuerKeys(context, input.idToken, (iss) => isGrantIssuer(context, iss));
        return idTokenVerifier(context, { keys: async () => keys, profile: azureProfile(context) }).verify(input);
      },
    };
  },
};
