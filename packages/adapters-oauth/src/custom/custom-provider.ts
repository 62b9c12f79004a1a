import {
  type CustomProvider,
  type CustomProviderRuntime,
  type IdTokenVerifier,
  type OidcDiscovery,
  PROFILE_TEXT_CLAIMS,
  type ProviderProfile,
} from "@latchkey/domain";
import { providerContext, providerOf } from "../create-oauth-providers.ts";
import { fieldsOf, getJson, idOf, providerFailure, stringOf } from "../http/provider-http.ts";
import type { TokenAnswer } from "../oauth2/code-flow.ts";
import { createIdTokenKeys } from "../oidc/id-token.ts";
import { idTokenVerifier } from "../oidc/id-token-verifier.ts";
import { customClaims, onlyAddress, profileOf } from "../profile.ts";
import type { OAuth2Definition, ProviderContext } from "../provider-definition.ts";
import { discover } from "./discover.ts";
import { guardedFetch } from "./guarded-fetch.ts";
import { checkUrl, type UrlGuardOptions } from "./url-guard.ts";

export interface CustomProviderRuntimeOptions extends UrlGuardOptions {
  /** Where providers send the browser back: CUSTOM_OAUTH_EXTERNAL_URL's (else API_EXTERNAL_URL's) /callback. */
  readonly redirectUri: string;
}

/**
 * CustomProviderRuntime over this package's OAuth 2.0 code flow: a stored provider becomes a definition like the
 * built-in ones, its endpoints the admin's (OAuth 2.0) or its stored discovery document's (OIDC), every call
 * through the guarded fetch. id_token keys are cached across sign-ins, per key set URL.
 */
export function createCustomProviderRuntime(options: CustomProviderRuntimeOptions): CustomProviderRuntime {
  const fetch = guardedFetch(options);
  const idTokenKeys = createIdTokenKeys(fetch);
  return {
    checkUrl: (url) => checkUrl(url, options),
    discover: (url, expectedIssuer) => discover(fetch, url, expectedIssuer),
    provider(stored, clientSecret) {
      const settings = {
        clientIds: [stored.clientId, ...stored.acceptableClientIds],
        secret: clientSecret,
        redirectUri: options.redirectUri,
        emailOptional: stored.emailOptional,
        skipNonceCheck: stored.skipNonceCheck,
      };
      return providerOf(customDefinition(stored), providerContext(stored.identifier, settings, fetch, idTokenKeys));
    },
  };
}

/** A stored provider as a definition of the shared code flow. */
function customDefinition(stored: CustomProvider): OAuth2Definition {
  const endpoints = endpointsOf(stored);
  return {
    name: stored.identifier,
    title: stored.name,
    defaultScopes: stored.scopes,
    takesScopes: true,
    // What golang.org/x/oauth2 (GoTrue's client) tries first.
    clientAuth: "basic",
    pkce: stored.pkceEnabled,
    authorizeParams: Object.entries(stored.authorizationParams),
    endpoints: () => endpoints,
    profile: (context, answer) => profileFrom(stored, context, answer),
    // An OIDC provider's id_tokens sign in at POST /token?grant_type=id_token too (signInWithIdToken), as GoTrue's.
    ...(stored.providerType === "oidc" && stored.discovery !== null
      ? { idTokens: (context: ProviderContext) => idTokensOf(stored, stored.discovery!, context) }
      : {}),
  };
}

function idTokensOf(stored: CustomProvider, discovery: OidcDiscovery, context: ProviderContext): IdTokenVerifier {
  return idTokenVerifier(context, {
    keys: async () => ({ jwksUri: discovery.jwksUri, issuer: stored.issuer ?? discovery.issuer }),
    profile: (claims) => customProfile(stored, claims as Record<string, unknown>),
  });
}

function endpointsOf(stored: CustomProvider): { authorization: string; token: string; userinfo: string | null } {
  if (stored.providerType === "oidc") {
    const discovery = stored.discovery;
    if (discovery === null) throw providerFailure(stored.identifier, "authorize", "has no discovery document");
    return {
      authorization: discovery.authorizationEndpoint,
      token: discovery.tokenEndpoint,
      userinfo: discovery.userinfoEndpoint,
    };
  }
  return { authorization: stored.authorizationUrl ?? "", token: stored.tokenUrl ?? "", userinfo: stored.userinfoUrl };
}

/**
 * Who signed in: an OIDC provider's id_token when the token answer has one (verified against its keys, its issuer
 * and the client ids), else the userinfo endpoint's answer, read as GoTrue reads it (customProfile).
 */
async function profileFrom(
  stored: CustomProvider,
  context: ProviderContext,
  answer: TokenAnswer,
): Promise<ProviderProfile> {
  const { discovery } = stored;
  if (stored.providerType === "oidc" && discovery !== null && answer.idToken) {
    const claims = await context.idTokenKeys.verify({
      provider: stored.identifier,
      idToken: answer.idToken,
      jwksUri: discovery.jwksUri,
      issuer: stored.issuer ?? discovery.issuer,
      audiences: context.settings.clientIds,
    });
    return customProfile(stored, claims as Record<string, unknown>);
  }
  const userinfo = endpointsOf(stored).userinfo;
  if (!userinfo) throw providerFailure(stored.identifier, "profile", "has neither an id_token nor a userinfo endpoint");
  const answered = await getJson(context.fetch, stored.identifier, {
    url: userinfo,
    headers: { Authorization: `Bearer ${answer.accessToken}` },
  });
  return customProfile(stored, fieldsOf(answered));
}

/**
 * The provider's claims as GoTrue's: the attribute mapping applied first (a target takes the claim a text value
 * names, or the value itself otherwise), then `sub`, the address and its `email_verified` (a JSON boolean, and
 * never mappable), the text claims, and under `custom_claims` the allow list's claims as the provider sent them.
 */
function customProfile(stored: CustomProvider, raw: Readonly<Record<string, unknown>>): ProviderProfile {
  const claims: Record<string, unknown> = { ...raw };
  for (const [target, source] of Object.entries(stored.attributeMapping)) {
    if (typeof source !== "string") claims[target] = source;
    else if (source in raw) claims[target] = raw[source];
  }
  const subject = idOf(claims["sub"]);
  if (subject === undefined) throw providerFailure(stored.identifier, "profile", "answered a user without a sub");
  const text = Object.fromEntries(PROFILE_TEXT_CLAIMS.map((key) => [key, stringOf(claims[key])]));
  const allowed = Object.fromEntries(
    stored.customClaimsAllowlist.filter((key) => key in raw).map((key) => [key, raw[key]]),
  );
  return profileOf(
    subject,
    claims["iss"] ?? stored.issuer ?? undefined,
    { ...text, custom_claims: customClaims(allowed) },
    onlyAddress(stringOf(claims["email"]), raw["email_verified"] === true),
  );
}
