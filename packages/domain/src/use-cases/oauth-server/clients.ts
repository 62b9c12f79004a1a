import type { Deps, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import {
  clientTypeOf,
  type OAuthClient,
  type OAuthClientType,
  type TokenEndpointAuthMethod,
} from "../../model/oauth-client.ts";
import {
  checkAuthMethod,
  checkDescriptiveFields,
  checkGrantTypes,
  checkRedirectUris,
} from "../../model/oauth-client-metadata.ts";
import { isUuid } from "../../model/uuid.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { assertServerEnabled } from "./server.ts";

/** A client's secret: 256 random bits, shown once, at registration or regeneration. */
const SECRET_BYTES = 32;

/** What a client registers with (RFC 7591's metadata, GoTrue's subset), as the request sent it. */
export interface ClientMetadata {
  readonly redirectUris?: readonly string[] | undefined;
  readonly clientType?: string | undefined;
  readonly tokenEndpointAuthMethod?: string | undefined;
  readonly grantTypes?: readonly string[] | undefined;
  readonly clientName?: string | undefined;
  readonly clientUri?: string | undefined;
  readonly logoUri?: string | undefined;
}

/** A client just registered, or given a new secret, and that secret: never shown again (null for public clients). */
export interface IssuedClient {
  readonly client: OAuthClient;
  readonly secret: string | null;
}

/** POST /admin/oauth/clients: an admin registers a client (`manual`). */
export async function registerClient(deps: Deps, input: { readonly metadata: ClientMetadata }): Promise<IssuedClient> {
  assertServerEnabled(deps);
  return register(deps, input.metadata, "manual");
}

/**
 * POST /oauth/clients/register: a client registers itself (RFC 7591), when OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION
 * allows it; RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER per client address.
 */
export async function registerClientDynamically(
  deps: Deps,
  input: { readonly metadata: ClientMetadata; readonly context: RequestContext },
): Promise<IssuedClient> {
  assertServerEnabled(deps);
  if (!deps.policy.oauthServer.allowDynamicRegistration) {
    throw new AuthError("oauth_dynamic_client_registration_disabled", "Dynamic client registration is not enabled");
  }
  await limitPerClient(deps, "oauth_client_register", input.context);
  return register(deps, input.metadata, "dynamic");
}

async function register(
  deps: Deps,
  metadata: ClientMetadata,
  registrationType: OAuthClient["registrationType"],
): Promise<IssuedClient> {
  const redirectUris = checkRedirectUris(metadata.redirectUris, { required: true });
  const grantTypes = checkGrantTypes(metadata.grantTypes ?? ["authorization_code", "refresh_token"]);
  checkDescriptiveFields(metadata);
  const { clientType, method } = typeAndMethod(metadata);
  const secret = clientType === "confidential" ? deps.random.token(SECRET_BYTES) : null;
  const now = deps.clock.now();
  const client: OAuthClient = {
    id: deps.random.uuid(),
    registrationType,
    clientType,
    tokenEndpointAuthMethod: method,
    secretDigest: secret === null ? null : deps.secrets.sha256(secret),
    redirectUris,
    grantTypes,
    name: metadata.clientName || null,
    uri: metadata.clientUri || null,
    logoUri: metadata.logoUri || null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  await deps.stores.oauthClients.insert(client);
  return { client, secret };
}

/**
 * The client type and authentication method, as GoTrue settles them: an explicit type wins, else the method's
 * (none is public), else confidential; the method defaults to the type's (RFC 7591: client_secret_basic), and
 * must agree with it.
 */
function typeAndMethod(metadata: ClientMetadata): { clientType: OAuthClientType; method: TokenEndpointAuthMethod } {
  const given = metadata.clientType || undefined;
  if (given !== undefined && given !== "public" && given !== "confidential") {
    throw new AuthError("validation_failed", "client_type must be 'public' or 'confidential'");
  }
  const method = metadata.tokenEndpointAuthMethod ? checkAuthMethod(metadata.tokenEndpointAuthMethod) : undefined;
  const clientType = given ?? (method === undefined ? "confidential" : clientTypeOf(method));
  if (method !== undefined && clientTypeOf(method) !== clientType) {
    throw new AuthError(
      "validation_failed",
      `client_type '${clientType}' is inconsistent with token_endpoint_auth_method '${method}' (expected client_type '${clientTypeOf(method)}')`,
    );
  }
  return { clientType, method: method ?? (clientType === "public" ? "none" : "client_secret_basic") };
}

/** GET /admin/oauth/clients: every client not deleted, newest first. */
export async function listClients(deps: Deps): Promise<OAuthClient[]> {
  assertServerEnabled(deps);
  return deps.stores.oauthClients.list();
}

/** GET /admin/oauth/clients/<client_id> */
export async function getClient(deps: Deps, input: { readonly clientId: string }): Promise<OAuthClient> {
  assertServerEnabled(deps);
  return clientOf(deps, input.clientId);
}

/** What PUT /admin/oauth/clients/<client_id> may change; absent fields stay. */
export type ClientUpdate = Omit<ClientMetadata, "clientType">;

/** PUT /admin/oauth/clients/<client_id>: changes the fields given, checked as at registration. */
export async function updateClient(
  deps: Deps,
  input: { readonly clientId: string; readonly update: ClientUpdate },
): Promise<OAuthClient> {
  assertServerEnabled(deps);
  const { update } = input;
  if (Object.values(update).every((value) => value === undefined)) {
    throw new AuthError("validation_failed", "No fields provided for update");
  }
  const redirectUris = update.redirectUris && checkRedirectUris(update.redirectUris, { required: false });
  const grantTypes = update.grantTypes && checkGrantTypes(update.grantTypes);
  checkDescriptiveFields(update);
  const method = update.tokenEndpointAuthMethod && checkAuthMethod(update.tokenEndpointAuthMethod);
  const client = await clientOf(deps, input.clientId);
  if (method && clientTypeOf(method) !== client.clientType) {
    throw new AuthError(
      "validation_failed",
      `token_endpoint_auth_method '${method}' is not valid for client_type '${client.clientType}'`,
    );
  }
  const updated: OAuthClient = {
    ...client,
    redirectUris: redirectUris ?? client.redirectUris,
    grantTypes: grantTypes ?? client.grantTypes,
    name: update.clientName === undefined ? client.name : update.clientName || null,
    uri: update.clientUri === undefined ? client.uri : update.clientUri || null,
    logoUri: update.logoUri === undefined ? client.logoUri : update.logoUri || null,
    tokenEndpointAuthMethod: method || client.tokenEndpointAuthMethod,
    updatedAt: deps.clock.now(),
  };
  await deps.stores.oauthClients.update(updated);
  return updated;
}

/** DELETE /admin/oauth/clients/<client_id>: soft-deleted, as in GoTrue. */
export async function deleteClient(deps: Deps, input: { readonly clientId: string }): Promise<void> {
  assertServerEnabled(deps);
  const client = await clientOf(deps, input.clientId);
  const now = deps.clock.now();
  await deps.stores.oauthClients.update({ ...client, deletedAt: now, updatedAt: now });
}

/** POST /admin/oauth/clients/<client_id>/regenerate_secret: a confidential client's new secret; the old one ends. */
export async function regenerateClientSecret(deps: Deps, input: { readonly clientId: string }): Promise<IssuedClient> {
  assertServerEnabled(deps);
  const client = await clientOf(deps, input.clientId);
  if (client.clientType !== "confidential") {
    throw new AuthError("validation_failed", "Cannot regenerate secret for public client");
  }
  const secret = deps.random.token(SECRET_BYTES);
  const updated: OAuthClient = { ...client, secretDigest: deps.secrets.sha256(secret), updatedAt: deps.clock.now() };
  await deps.stores.oauthClients.update(updated);
  return { client: updated, secret };
}

/** The client of a path's client_id, in GoTrue's words when there is none. */
async function clientOf(deps: Deps, clientId: string): Promise<OAuthClient> {
  if (!isUuid(clientId)) throw new AuthError("validation_failed", "invalid client_id format");
  const client = await deps.stores.oauthClients.find(clientId);
  if (!client) throw new AuthError("oauth_client_not_found", "OAuth client not found");
  return client;
}
