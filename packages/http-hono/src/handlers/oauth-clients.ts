import { type OAuthClient, timestamp } from "@latchkey/domain";
import type { Handler } from "hono";
import type * as v from "valibot";
import type { AppEnv } from "../app-env.ts";
import { readJson } from "../request/read-json.ts";
import { OAuthClientBody } from "../request/schemas.ts";

// The OAuth server's clients: the admin's registry (/admin/oauth/clients) and clients registering themselves
// (/oauth/clients/register, RFC 7591).

/** GoTrue's client JSON; the secret only when just issued. */
function presentClient(client: OAuthClient, secret: string | null = null) {
  return {
    client_id: client.id,
    ...(secret === null ? {} : { client_secret: secret }),
    client_type: client.clientType,
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    grant_types: client.grantTypes,
    // OAuth 2.1 has one response type.
    response_types: ["code"],
    ...(client.name ? { client_name: client.name } : {}),
    ...(client.uri ? { client_uri: client.uri } : {}),
    ...(client.logoUri ? { logo_uri: client.logoUri } : {}),
    registration_type: client.registrationType,
    created_at: timestamp(client.createdAt),
    updated_at: timestamp(client.updatedAt),
  };
}

const metadataOf = (body: v.InferOutput<typeof OAuthClientBody>) => ({
  redirectUris: body.redirect_uris,
  clientType: body.client_type,
  tokenEndpointAuthMethod: body.token_endpoint_auth_method,
  grantTypes: body.grant_types,
  clientName: body.client_name,
  clientUri: body.client_uri,
  logoUri: body.logo_uri,
});

const clientIdOf = (c: Parameters<Handler<AppEnv>>[0]) => c.req.param("client_id") ?? "";

/** POST /admin/oauth/clients: 201 with the secret, shown this once. */
export const register = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, OAuthClientBody);
  const { client, secret } = await c.var.auth.oauthServer.registerClient({ metadata: metadataOf(body) });
  return c.json(presentClient(client, secret), 201);
};

/** POST /oauth/clients/register (RFC 7591): 201 with the secret, shown this once. */
export const registerDynamically = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, OAuthClientBody);
  const { client, secret } = await c.var.auth.oauthServer.registerClientDynamically({
    metadata: metadataOf(body),
    context: c.get("caller"),
  });
  // RFC 7591 3.2.1: with a secret, when it expires is required (0: never); GoTrue leaves it out, and clients refuse.
  return c.json({ ...presentClient(client, secret), ...(secret === null ? {} : { client_secret_expires_at: 0 }) }, 201);
};

/** GET /admin/oauth/clients: `{ clients }`, newest first. */
export const list = (): Handler<AppEnv> => async (c) => {
  const clients = await c.var.auth.oauthServer.listClients();
  return c.json({ clients: clients.map((client) => presentClient(client)) });
};

/** GET /admin/oauth/clients/<client_id> */
export const get = (): Handler<AppEnv> => async (c) => {
  const client = await c.var.auth.oauthServer.getClient({ clientId: clientIdOf(c) });
  return c.json(presentClient(client));
};

/** PUT /admin/oauth/clients/<client_id>: the fields given; the type stays. */
export const update = (): Handler<AppEnv> => async (c) => {
  const { clientType: _type, ...update } = metadataOf(await readJson(c, OAuthClientBody));
  const client = await c.var.auth.oauthServer.updateClient({ clientId: clientIdOf(c), update });
  return c.json(presentClient(client));
};

/** DELETE /admin/oauth/clients/<client_id>: 204. */
export const remove = (): Handler<AppEnv> => async (c) => {
  await c.var.auth.oauthServer.deleteClient({ clientId: clientIdOf(c) });
  return c.body(null, 204);
};

/** POST /admin/oauth/clients/<client_id>/regenerate_secret: the new secret, shown this once. */
export const regenerateSecret = (): Handler<AppEnv> => async (c) => {
  const { client, secret } = await c.var.auth.oauthServer.regenerateClientSecret({ clientId: clientIdOf(c) });
  return c.json(presentClient(client, secret));
};
