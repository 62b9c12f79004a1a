import type { Deps } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { OAUTH_SCOPES, type OAuthAuthorization, scopesOf } from "../../model/oauth-authorization.ts";
import type { OAuthClient } from "../../model/oauth-client.ts";
import { isUuid } from "../../model/uuid.ts";
import { assertServerEnabled } from "./server.ts";

/** The authorization id the consent page gets: unguessable, as it stands for the request until it is answered. */
const AUTHORIZATION_ID_BYTES = 24;
/** RFC 7636: 43 to 128 characters of the unreserved set. */
const PKCE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;

/** GET /oauth/authorize's query, as the client sent it. */
export interface AuthorizeRequest {
  readonly clientId?: string | undefined;
  readonly redirectUri?: string | undefined;
  readonly responseType?: string | undefined;
  readonly scope?: string | undefined;
  readonly state?: string | undefined;
  readonly resource?: string | undefined;
  readonly codeChallenge?: string | undefined;
  readonly codeChallengeMethod?: string | undefined;
  readonly nonce?: string | undefined;
}

/**
 * GET /oauth/authorize: an authorization request of a client, stored, and where to send the browser: the app's
 * consent page (OAUTH_SERVER_AUTHORIZATION_PATH on SITE_URL) with the request's id. As GoTrue: an unknown client or
 * a redirect URI that is not exactly one of the client's is refused here and never redirected to (it cannot be
 * trusted); any other fault goes back to the client's redirect URI as RFC 6749's `error`, with the state. Unlike
 * GoTrue, PKCE must be S256 (OAuth 2.1; GoTrue takes `plain` too).
 */
export async function startAuthorization(deps: Deps, request: AuthorizeRequest): Promise<{ location: string }> {
  assertServerEnabled(deps);
  if (!request.clientId) throw new AuthError("validation_failed", "client_id is required");
  if (!request.redirectUri) throw new AuthError("validation_failed", "redirect_uri is required");
  const client = isUuid(request.clientId) ? await deps.stores.oauthClients.find(request.clientId) : null;
  if (!client) throw new AuthError("oauth_client_not_found", "invalid client_id");
  const redirectUri = request.redirectUri;
  if (!client.redirectUris.includes(redirectUri)) throw new AuthError("validation_failed", "invalid redirect_uri");
  const state = request.state || null;
  const problem = requestProblem(deps, client, request);
  if (problem !== null)
    return { location: errorRedirect(redirectUri, { error: "invalid_request", description: problem, state }) };
  const path = deps.policy.oauthServer.authorizationPath;
  if (path === null) {
    const description = "oauth authorization path not configured";
    return { location: errorRedirect(redirectUri, { error: "server_error", description, state }) };
  }
  const now = deps.clock.now();
  const authorization: OAuthAuthorization = {
    id: deps.random.token(AUTHORIZATION_ID_BYTES),
    clientId: client.id,
    userId: null,
    redirectUri,
    scope: scopesOf(request.scope || deps.policy.oauthServer.defaultScope).join(" "),
    state,
    resource: request.resource || null,
    codeChallenge: request.codeChallenge ?? "",
    nonce: request.nonce || null,
    status: "pending",
    codeDigest: null,
    sessionId: null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + deps.policy.oauthServer.authorizationTtlSeconds * 1000),
    approvedAt: null,
  };
  await deps.stores.oauthAuthorizations.insert(authorization, now);
  // GoTrue's join: SITE_URL without its trailing slashes, then the path.
  const consentPage = new URL(
    `${deps.policy.redirect.siteUrl.replace(/\/+$/, "")}${path.startsWith("/") ? "" : "/"}${path}`,
  );
  consentPage.searchParams.set("authorization_id", authorization.id);
  return { location: consentPage.toString() };
}

/** What is wrong with the rest of a request of a known client and redirect URI, in GoTrue's words; null if nothing. */
function requestProblem(deps: Deps, client: OAuthClient, request: AuthorizeRequest): string | null {
  if ((request.responseType || "code") !== "code") return "only response_type=code is supported";
  if (!client.grantTypes.includes("authorization_code")) return "client is not allowed to use the authorization code";
  const scopes = scopesOf(request.scope || deps.policy.oauthServer.defaultScope);
  if (scopes.length === 0) return "scope parameter cannot be empty";
  const unknown = scopes.find((scope) => !(OAUTH_SCOPES as readonly string[]).includes(scope));
  if (unknown !== undefined) return `unsupported scope: ${unknown}`;
  // An id_token its client can verify needs a key of JWT_KEYS; GoTrue fails at the exchange, after the consent.
  if (scopes.includes("openid") && !deps.signer.publiclyVerifiable) {
    return "scope openid needs an asymmetric signing key (JWT_KEYS) on this server";
  }
  const resourceProblem = request.resource ? resourceIndicatorProblem(request.resource) : null;
  if (resourceProblem !== null) return resourceProblem;
  if (!request.codeChallenge || !request.codeChallengeMethod) {
    return "PKCE flow requires both code_challenge and code_challenge_method";
  }
  if (request.codeChallengeMethod !== "S256") return "code_challenge_method must be 'S256'";
  if (!PKCE_CHALLENGE.test(request.codeChallenge)) return "code_challenge must be between 43 and 128 characters";
  return null;
}

/** RFC 8707: an absolute URI, without fragment or query. */
function resourceIndicatorProblem(resource: string): string | null {
  if (!URL.canParse(resource)) return "resource must be an absolute URI";
  const url = new URL(resource);
  if (url.hash !== "" || resource.includes("#")) return "resource must not include a fragment component";
  if (url.search !== "") return "resource must not include a query component";
  return null;
}

/** The client's redirect URI with RFC 6749's error parameters (and the state, which the client checks). */
export function errorRedirect(
  redirectUri: string,
  { error, description, state }: { error: string; description: string; state: string | null },
): string {
  const url = new URL(redirectUri);
  url.searchParams.set("error", error);
  url.searchParams.set("error_description", description);
  if (state) url.searchParams.set("state", state);
  return url.toString();
}
