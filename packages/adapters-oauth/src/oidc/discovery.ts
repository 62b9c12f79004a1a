import * as oauth from "oauth4webapi";
import { providerFailure } from "../http/provider-http.ts";

/** GoTrue's EXTERNAL_OIDC_PROVIDER_CACHE_TTL default: how long a document is used before it is fetched again. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;
/** How long a document may still serve while a new one cannot be had: past it, the issuer's changes would be missed. */
const DISCOVERY_MAX_STALE_MS = 24 * 60 * 60 * 1000;
/**
 * How long a failed fetch is remembered: meanwhile sign-ins with that issuer fail at once instead of each waiting
 * for an issuer that does not answer (up to the provider timeout), and the issuer is asked once, not by all.
 */
const DISCOVERY_FAILURE_MS = 30 * 1000;

/** The endpoints an OIDC provider publishes at `<issuer>/.well-known/openid-configuration`. */
export interface OidcEndpoints {
  readonly issuer: string;
  readonly authorization: string;
  readonly token: string;
  readonly userinfo: string | undefined;
  readonly jwks: string;
}

export interface Discovery {
  /**
   * The issuer's endpoints: fetched at most once at a time per issuer, used for an hour, then fetched again in the
   * background while the old answer serves (for a day at most); a failure is remembered for 30 s.
   */
  endpoints(issuer: string): Promise<OidcEndpoints>;
}

interface IssuerState {
  good?: { readonly endpoints: OidcEndpoints; readonly fetchedAt: number };
  failure?: { readonly error: Error; readonly at: number };
  pending?: Promise<OidcEndpoints>;
}

/**
 * OIDC discovery, cached like GoTrue's but so that one slow or dead issuer never holds up every sign-in.
 * oauth4webapi fetches the document and checks that it is the issuer's own (its `issuer` equals the one asked for).
 */
export function createDiscovery(provider: string, fetchFn: typeof globalThis.fetch, now = () => Date.now()): Discovery {
  const states = new Map<string, IssuerState>();

  const fetchOnce = (issuer: string, state: IssuerState): Promise<OidcEndpoints> => {
    state.pending ??= (async () => {
      try {
        const url = new URL(issuer);
        const options = { [oauth.customFetch]: fetchFn, [oauth.allowInsecureRequests]: url.protocol === "http:" };
        const server = await oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, options));
        const endpoints = toEndpoints(server);
        state.good = { endpoints, fetchedAt: now() };
        state.failure = undefined;
        return endpoints;
      } catch (error) {
        const failure = providerFailure(provider, "exchange", "its OpenID configuration could not be read", error);
        state.failure = { error: failure, at: now() };
        throw failure;
      } finally {
        state.pending = undefined;
      }
    })();
    return state.pending;
  };

  return {
    async endpoints(issuer) {
      let state = states.get(issuer);
      if (!state) {
        state = {};
        states.set(issuer, state);
      }
      const { good, failure } = state;
      const age = good === undefined ? Number.POSITIVE_INFINITY : now() - good.fetchedAt;
      if (good && age < DISCOVERY_TTL_MS) return good.endpoints;
      const failedLately = failure !== undefined && now() - failure.at < DISCOVERY_FAILURE_MS;
      if (good && age < DISCOVERY_MAX_STALE_MS) {
        // Due again: fetched in the background; this sign-in, and those meanwhile, go on with what they have.
        if (!failedLately) fetchOnce(issuer, state).catch(() => {});
        return good.endpoints;
      }
      if (failedLately) throw failure.error;
      return fetchOnce(issuer, state);
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
