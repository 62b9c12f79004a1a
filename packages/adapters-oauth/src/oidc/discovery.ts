import * as oauth from "oauth4webapi";
import { providerFailure } from "../http/provider-http.ts";

/** GoTrue's EXTERNAL_OIDC_PROVIDER_CACHE_TTL default. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;

/** The endpoints an OIDC provider publishes at `<issuer>/.well-known/openid-configuration`. */
export interface OidcEndpoints {
  readonly issuer: string;
  readonly authorization: string;
  readonly token: string;
  readonly userinfo: string | undefined;
  readonly jwks: string;
}

export interface Discovery {
  /** The issuer's endpoints: fetched once an hour; when a refresh fails, the last good answer serves. */
  endpoints(issuer: string): Promise<OidcEndpoints>;
}

/**
 * OIDC discovery, cached like GoTrue's. oauth4webapi fetches the document and checks that it is the issuer's own
 * (its `issuer` equals the one asked for).
 */
export function createDiscovery(provider: string, fetchFn: typeof globalThis.fetch, now = () => Date.now()): Discovery {
  const cache = new Map<string, { endpoints: OidcEndpoints; fetchedAt: number }>();
  return {
    async endpoints(issuer) {
      const cached = cache.get(issuer);
      if (cached && now() - cached.fetchedAt < DISCOVERY_TTL_MS) return cached.endpoints;
      try {
        const url = new URL(issuer);
        const options = { [oauth.customFetch]: fetchFn, [oauth.allowInsecureRequests]: url.protocol === "http:" };
        const server = await oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, options));
        const endpoints = toEndpoints(server);
        cache.set(issuer, { endpoints, fetchedAt: now() });
        return endpoints;
      } catch (error) {
        if (cached) return cached.endpoints;
        throw providerFailure(provider, "exchange", "its OpenID configuration could not be read", error);
      }
    },
  };
}

function toEndpoints(server: oauth.AuthorizationServer): OidcEndpoints {
  const { authorization_endpoint, token_endpoint, jwks_uri, userinfo_endpoint } = server;
  if (!authorization_endpoint || !token_endpoint || !jwks_uri) {
    throw new Error("the OpenID configuration lacks an authorization, token or jwks endpoint");
  }
  return {
    issuer: server.issuer,
    authorization: authorization_endpoint,
    token: token_endpoint,
    userinfo: userinfo_endpoint,
    jwks: jwks_uri,
  };
}
