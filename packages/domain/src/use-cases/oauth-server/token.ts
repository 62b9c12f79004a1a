import type { Deps, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { OAuthAuthorization } from "../../model/oauth-authorization.ts";
import { scopesOf } from "../../model/oauth-authorization.ts";
import type { OAuthClient } from "../../model/oauth-client.ts";
import { isBanned, type User } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { refreshSession } from "../../services/refresh-session.ts";
import { grantSession, type OpenedSession, openSession } from "../../services/sessions.ts";
import { oauthCodeDigest } from "../../services/tokens/digests.ts";
import { authenticateClient, type ClientCredentials } from "./client-authentication.ts";
import { idTokenFor } from "./id-token.ts";
import { assertServerEnabled } from "./server.ts";

/** POST /oauth/token's parameters (form or JSON), client credentials apart. */
export interface OAuthTokenRequest {
  readonly grantType: string | undefined;
  readonly code?: string | undefined;
  readonly redirectUri?: string | undefined;
  readonly codeVerifier?: string | undefined;
  readonly resource?: string | undefined;
  readonly refreshToken?: string | undefined;
}

/** RFC 6749's token response (no `user`: a third party gets what its scopes allow, at /oauth/userinfo). */
export interface OAuthTokens {
  readonly accessToken: string;
  readonly tokenType: "bearer";
  readonly expiresIn: number;
  readonly refreshToken: string;
  readonly scope: string;
  readonly idToken: string | null;
}

const invalidGrant = (message: string) => new AuthError("invalid_grant", message);

/**
 * POST /oauth/token: a client, authenticated as it registered, exchanges an authorization code (with its PKCE
 * verifier) or a refresh token of its own sessions for tokens.
 */
export async function issueOAuthTokens(
  deps: Deps,
  input: {
    readonly credentials: ClientCredentials;
    readonly request: OAuthTokenRequest;
    readonly context: RequestContext;
  },
): Promise<OAuthTokens> {
  assertServerEnabled(deps);
  const { request } = input;
  if (!request.grantType) throw new AuthError("invalid_request", "grant_type is required");
  const client = await authenticateClient(deps, input.credentials);
  if (request.grantType !== "authorization_code" && request.grantType !== "refresh_token") {
    throw new AuthError("unsupported_grant_type", `Unsupported grant type: ${request.grantType}`);
  }
  if (!client.grantTypes.includes(request.grantType)) {
    throw new AuthError("unsupported_grant_type", `Client is not allowed to use grant type: ${request.grantType}`);
  }
  if (request.grantType === "refresh_token") return refreshForClient(deps, client, input);
  return exchangeCode(deps, client, input);
}

type Exchanged = {
  readonly ok: true;
  readonly user: User;
  readonly opened: OpenedSession;
  readonly auth: OAuthAuthorization;
};

/**
 * The code's session: once. The code must be this client's, unexpired, for the redirect URI and resource it was
 * asked with, and answer its PKCE challenge (S256). security: a code presented again ends the session it was
 * exchanged for (RFC 6749 4.1.2), in a transaction that commits although the request fails.
 */
async function exchangeCode(
  deps: Deps,
  client: OAuthClient,
  { request, context }: { request: OAuthTokenRequest; context: RequestContext },
): Promise<OAuthTokens> {
  if (!request.code) throw new AuthError("invalid_request", "code is required for authorization_code grant");
  const code = request.code;
  const outcome = await deps.tx.run(async (stores): Promise<Exchanged | { ok: false; error: AuthError }> => {
    const auth = await stores.oauthAuthorizations.lockByCode(oauthCodeDigest(deps.secrets, code));
    if (!auth || (auth.status !== "approved" && auth.status !== "exchanged")) {
      return { ok: false, error: invalidGrant("Invalid authorization code") };
    }
    if (auth.status === "exchanged") {
      if (auth.sessionId !== null && auth.userId !== null) await stores.sessions.deleteOne(auth.userId, auth.sessionId);
      return { ok: false, error: invalidGrant("Invalid authorization code") };
    }
    assertCodeFits(deps, { auth, client, request });
    const user = auth.userId === null ? null : await stores.users.findById(auth.userId);
    if (!user || user.deletedAt !== null)
      return { ok: false, error: invalidGrant("User not found for authorization code") };
    if (isBanned(user, deps.clock.now())) return { ok: false, error: new AuthError("access_denied", "User is banned") };
    const opened = await openClientSession(deps, stores, { user, client, auth, context });
    await stores.oauthAuthorizations.update({ ...auth, status: "exchanged", sessionId: opened.session.id });
    return { ok: true, user, opened, auth };
  });
  if (!outcome.ok) throw outcome.error;
  const grant = await grantSession(deps, outcome.user, outcome.opened);
  const scopes = scopesOf(outcome.auth.scope);
  const idToken = scopes.includes("openid")
    ? await idTokenFor(deps, { user: outcome.user, client, nonce: outcome.auth.nonce, scopes })
    : null;
  deps.events.record({ kind: "signed_in", method: "oauth_provider/authorization_code" });
  return tokensOf(grant, outcome.auth.scope, idToken);
}

/** The code's request must be this client's, alive, and asked with this redirect URI, resource and verifier. */
function assertCodeFits(
  deps: Deps,
  { auth, client, request }: { auth: OAuthAuthorization; client: OAuthClient; request: OAuthTokenRequest },
): void {
  if (deps.clock.now().getTime() >= auth.expiresAt.getTime()) throw invalidGrant("Authorization code has expired");
  if (auth.clientId !== client.id) throw invalidGrant("Authorization code was not issued for this client");
  if (request.resource && request.resource !== auth.resource) {
    throw invalidGrant("Authorization code resource does not match the resource parameter");
  }
  if (request.redirectUri && request.redirectUri !== auth.redirectUri) throw invalidGrant("Invalid redirect_uri");
  const verifier = request.codeVerifier ?? "";
  if (verifier === "" || !deps.secrets.equal(deps.secrets.sha256(verifier), auth.codeChallenge)) {
    throw invalidGrant("PKCE verification failed: code_verifier does not match code_challenge");
  }
}

function openClientSession(
  deps: Deps,
  stores: Stores,
  {
    user,
    client,
    auth,
    context,
  }: { user: User; client: OAuthClient; auth: OAuthAuthorization; context: RequestContext },
): Promise<OpenedSession> {
  const traits = { provider_type: "oauth_provider_authorization_code", client_id: client.id };
  return openSession(deps, stores, user, {
    method: "oauth_provider/authorization_code",
    context,
    audit: [{ action: "login", actor: user, context, traits }],
    oauth: { clientId: client.id, scopes: auth.scope },
  });
}

/** A refresh of one of the client's own sessions, with the rotation and reuse rules of every session. */
async function refreshForClient(
  deps: Deps,
  client: OAuthClient,
  { request, context }: { request: OAuthTokenRequest; context: RequestContext },
): Promise<OAuthTokens> {
  if (!request.refreshToken) {
    throw new AuthError("invalid_request", "refresh_token is required for refresh_token grant");
  }
  try {
    const grant = await refreshSession(deps, { refreshToken: request.refreshToken, context, oauthClientId: client.id });
    return tokensOf(grant, grant.session.scopes ?? "", null);
  } catch (error) {
    // RFC 6749 5.2: a refresh token that is no longer good is `invalid_grant` to a third party, which then knows to
    // send its user through authorization again (as GoTrue's token endpoint converts them).
    if (error instanceof AuthError && ENDED_GRANTS.has(error.code)) throw invalidGrant(error.message);
    throw error;
  }
}

const ENDED_GRANTS: ReadonlySet<string> = new Set([
  "refresh_token_not_found",
  "refresh_token_already_used",
  "session_not_found",
  "session_expired",
  "user_banned",
]);

function tokensOf(
  grant: { accessToken: string; expiresIn: number; refreshToken: string },
  scope: string,
  idToken: string | null,
): OAuthTokens {
  return {
    accessToken: grant.accessToken,
    tokenType: "bearer",
    expiresIn: grant.expiresIn,
    refreshToken: grant.refreshToken,
    scope,
    idToken,
  };
}
