import { type Auth, AuthError, type OAuthAuthorization, type OAuthClient } from "@latchkey/domain";
import type { Context, Handler, MiddlewareHandler } from "hono";
import * as v from "valibot";
import type { AppEnv } from "../app-env.ts";
import { readForm, readJson } from "../request/read-json.ts";
import { ConsentBody } from "../request/schemas.ts";

// Latchkey as an OAuth 2.1 authorization server: the third-party client's endpoints (/oauth/authorize,
// /oauth/token, /oauth/userinfo), the app's consent page's (/oauth/authorizations/<id>), and the user's grants.

/** OAUTH_SERVER_ENABLED, checked before anything else (the caller's token included), as GoTrue's middleware does. */
export const serverOn =
  (auth: Auth): MiddlewareHandler<AppEnv> =>
  async (_c, next) => {
    if (!auth.policy.oauthServer.enabled) throw new AuthError("feature_disabled", "OAuth server is disabled");
    await next();
  };

/** GET /oauth/authorize: a redirect, to the consent page or back to the client with an error. */
export const authorize = (): Handler<AppEnv> => async (c) => {
  const query = (name: string) => c.req.query(name);
  const { location } = await c.var.auth.oauthServer.authorize({
    clientId: query("client_id"),
    redirectUri: query("redirect_uri"),
    responseType: query("response_type"),
    scope: query("scope"),
    state: query("state"),
    resource: query("resource"),
    codeChallenge: query("code_challenge"),
    codeChallengeMethod: query("code_challenge_method"),
    nonce: query("nonce"),
  });
  return c.redirect(location, 302);
};

const clientDetails = (client: OAuthClient) => ({
  id: client.id,
  ...(client.name ? { name: client.name } : {}),
  ...(client.uri ? { uri: client.uri } : {}),
  ...(client.logoUri ? { logo_uri: client.logoUri } : {}),
});

const consentCaller = (c: Context<AppEnv>) => ({
  principal: c.get("principal"),
  authorizationId: c.req.param("authorization_id") ?? "",
  origin: c.req.header("origin") ?? null,
});

/** GET /oauth/authorizations/<id>: the request for the consent page, or `{ redirect_url }` when consented before. */
export const getAuthorization = (): Handler<AppEnv> => async (c) => {
  const view = await c.var.auth.oauthServer.getAuthorization(consentCaller(c));
  if (view.kind === "approved") return c.json({ redirect_url: view.redirectUrl });
  const { authorization, client } = view;
  const user = c.get("principal").user;
  return c.json(presentAuthorization(authorization, client, user));
};

function presentAuthorization(
  auth: OAuthAuthorization,
  client: OAuthClient,
  user: { id: string; email: string | null },
) {
  return {
    authorization_id: auth.id,
    redirect_uri: auth.redirectUri,
    client: clientDetails(client),
    user: { id: user.id, ...(user.email ? { email: user.email } : {}) },
    scope: auth.scope,
  };
}

/** POST /oauth/authorizations/<id>/consent: `{ redirect_url }`, where the app sends the browser next. */
export const consent = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, ConsentBody);
  const { redirectUrl } = await c.var.auth.oauthServer.consent({
    ...consentCaller(c),
    action: body.action ?? undefined,
  });
  return c.json({ redirect_url: redirectUrl });
};

/**
 * POST /oauth/token: RFC 6749's token endpoint. Parameters come as a form (what OAuth clients send) or as JSON; the
 * client authenticates with HTTP Basic (client_secret_basic) or in the parameters (client_secret_post, or its id
 * alone for a public client). Errors are RFC 6749's `{ error, error_description }`.
 */
export const token = (): Handler<AppEnv> => async (c) => {
  const params = await tokenParams(c);
  const text = (name: string) => (typeof params[name] === "string" ? (params[name] as string) : undefined);
  const answer = await c.var.auth.oauthServer.token({
    credentials: credentialsOf(c.req.header("authorization"), text("client_id"), text("client_secret")),
    request: {
      grantType: text("grant_type"),
      code: text("code"),
      redirectUri: text("redirect_uri"),
      codeVerifier: text("code_verifier"),
      resource: text("resource"),
      refreshToken: text("refresh_token"),
    },
    context: c.get("caller"),
  });
  c.header("Cache-Control", "no-store");
  return c.json({
    access_token: answer.accessToken,
    token_type: answer.tokenType,
    expires_in: answer.expiresIn,
    refresh_token: answer.refreshToken,
    scope: answer.scope,
    ...(answer.idToken === null ? {} : { id_token: answer.idToken }),
  });
};

const AnyObject = v.record(v.string(), v.unknown());

async function tokenParams(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  if ((c.req.header("content-type") ?? "").includes("application/json")) return readJson(c, AnyObject);
  return readForm(c);
}

/** The client's credentials, and the method they were presented by (RFC 6749 2.3.1). */
function credentialsOf(authorization: string | undefined, clientId?: string, clientSecret?: string) {
  const basic = /^basic\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  if (basic === undefined) {
    const method = clientSecret ? ("client_secret_post" as const) : ("none" as const);
    return { clientId, clientSecret, method };
  }
  const decoded = Buffer.from(basic, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new AuthError("invalid_client", "invalid basic auth format");
  // RFC 6749 2.3.1: both halves are form-urlencoded before they are joined.
  const decode = (part: string) => decodeURIComponent(part.replaceAll("+", " "));
  try {
    return {
      clientId: decode(decoded.slice(0, colon)),
      clientSecret: decode(decoded.slice(colon + 1)),
      method: "client_secret_basic" as const,
    };
  } catch {
    throw new AuthError("invalid_client", "invalid basic auth encoding");
  }
}

/** GET /oauth/userinfo: the claims the token's scopes allow. */
export const userInfo = (): Handler<AppEnv> => async (c) => {
  return c.json(await c.var.auth.oauthServer.userInfo({ principal: c.get("principal") }));
};

/** GET /user/oauth/grants: the clients the user allowed. */
export const listGrants = (): Handler<AppEnv> => async (c) => {
  const grants = await c.var.auth.oauthServer.listGrants({ principal: c.get("principal") });
  return c.json(
    grants.map(({ client, consent }) => ({
      client: clientDetails(client),
      scopes: consent.scopes,
      granted_at: consent.grantedAt.toISOString(),
    })),
  );
};

/** DELETE /user/oauth/grants?client_id=: 204. */
export const revokeGrant = (): Handler<AppEnv> => async (c) => {
  await c.var.auth.oauthServer.revokeGrant({
    principal: c.get("principal"),
    clientId: c.req.query("client_id"),
    context: c.get("caller"),
  });
  return c.body(null, 204);
};
