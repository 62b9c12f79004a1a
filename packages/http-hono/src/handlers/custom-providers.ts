import {
  type Auth,
  AuthError,
  type CustomProvider,
  type CustomProviderInput,
  type OidcDiscovery,
  timestamp,
} from "@latchkey/domain";
import type { Context, Handler, MiddlewareHandler } from "hono";
import type * as v from "valibot";
import type { AppEnv } from "../app-env.ts";
import { readJson } from "../request/read-json.ts";
import { CustomProviderBody } from "../request/schemas.ts";

// Custom OAuth/OIDC providers, the admin's registry (/admin/custom-providers), in GoTrue's JSON.

/** GoTrue's answer on /admin/custom-providers while CUSTOM_OAUTH_ENABLED is off, once the caller is an admin. */
export const customProvidersOn =
  (auth: Auth): MiddlewareHandler<AppEnv> =>
  async (_c, next) => {
    if (!auth.policy.customProviders.enabled) {
      throw new AuthError("feature_disabled", "Custom OAuth providers are disabled");
    }
    await next();
  };

/** GoTrue's OIDCDiscovery JSON: absent fields left out. */
function presentDiscovery(document: OidcDiscovery) {
  return {
    issuer: document.issuer,
    authorization_endpoint: document.authorizationEndpoint,
    token_endpoint: document.tokenEndpoint,
    ...(document.userinfoEndpoint ? { userinfo_endpoint: document.userinfoEndpoint } : {}),
    jwks_uri: document.jwksUri,
    ...(document.scopesSupported?.length ? { scopes_supported: document.scopesSupported } : {}),
    ...(document.responseTypesSupported?.length ? { response_types_supported: document.responseTypesSupported } : {}),
    ...(document.grantTypesSupported?.length ? { grant_types_supported: document.grantTypesSupported } : {}),
    ...(document.subjectTypesSupported?.length ? { subject_types_supported: document.subjectTypesSupported } : {}),
  };
}

/** The key with its value, or nothing: GoTrue omits its null pointers. */
const present = <K extends string, T>(key: K, value: T | null) =>
  (value === null ? {} : { [key]: value }) as { [P in K]?: T };

/** GoTrue's provider JSON: never the client secret, nor when the discovery document was fetched. */
function presentProvider(provider: CustomProvider) {
  return {
    id: provider.id,
    provider_type: provider.providerType,
    identifier: provider.identifier,
    name: provider.name,
    client_id: provider.clientId,
    acceptable_client_ids: provider.acceptableClientIds,
    scopes: provider.scopes,
    pkce_enabled: provider.pkceEnabled,
    attribute_mapping: provider.attributeMapping,
    custom_claims_allowlist: provider.customClaimsAllowlist,
    authorization_params: provider.authorizationParams,
    enabled: provider.enabled,
    email_optional: provider.emailOptional,
    ...present("issuer", provider.issuer),
    ...present("discovery_url", provider.discoveryUrl),
    skip_nonce_check: provider.skipNonceCheck,
    ...present("discovery_document", provider.discovery && presentDiscovery(provider.discovery)),
    ...present("authorization_url", provider.authorizationUrl),
    ...present("token_url", provider.tokenUrl),
    ...present("userinfo_url", provider.userinfoUrl),
    ...present("jwks_uri", provider.jwksUri),
    created_at: timestamp(provider.createdAt),
    updated_at: timestamp(provider.updatedAt),
  };
}

const inputOf = (body: v.InferOutput<typeof CustomProviderBody>): CustomProviderInput => ({
  providerType: body.provider_type,
  identifier: body.identifier,
  name: body.name,
  clientId: body.client_id,
  clientSecret: body.client_secret,
  acceptableClientIds: body.acceptable_client_ids,
  scopes: body.scopes,
  pkceEnabled: body.pkce_enabled,
  attributeMapping: body.attribute_mapping,
  customClaimsAllowlist: body.custom_claims_allowlist,
  authorizationParams: body.authorization_params,
  enabled: body.enabled,
  emailOptional: body.email_optional,
  issuer: body.issuer,
  discoveryUrl: body.discovery_url,
  skipNonceCheck: body.skip_nonce_check,
  authorizationUrl: body.authorization_url,
  tokenUrl: body.token_url,
  userinfoUrl: body.userinfo_url,
  jwksUri: body.jwks_uri,
});

/** The identifier in the path, `custom:` included (sent as is or percent-encoded; the router decodes it). */
const identifierOf = (c: Context<AppEnv>) => c.req.param("identifier") ?? "";
const adminCall = (c: Context<AppEnv>) => ({ admin: c.get("admin"), context: c.get("caller") });

/** GET /admin/custom-providers: `{ providers }`, newest first; `?type=oauth2|oidc` filters. */
export const list = (): Handler<AppEnv> => async (c) => {
  const providers = await c.var.auth.customProviders.list({ type: c.req.query("type") });
  return c.json({ providers: providers.map(presentProvider) });
};

/** POST /admin/custom-providers: 201. */
export const create = (): Handler<AppEnv> => async (c) => {
  const provider = inputOf(await readJson(c, CustomProviderBody));
  return c.json(presentProvider(await c.var.auth.customProviders.create({ ...adminCall(c), provider })), 201);
};

/** GET /admin/custom-providers/<identifier> */
export const get = (): Handler<AppEnv> => async (c) =>
  c.json(presentProvider(await c.var.auth.customProviders.get({ identifier: identifierOf(c) })));

/** PUT /admin/custom-providers/<identifier>: the fields given. */
export const update = (): Handler<AppEnv> => async (c) => {
  const update = inputOf(await readJson(c, CustomProviderBody));
  const provider = await c.var.auth.customProviders.update({ ...adminCall(c), identifier: identifierOf(c), update });
  return c.json(presentProvider(provider));
};

/** DELETE /admin/custom-providers/<identifier>: 204. */
export const remove = (): Handler<AppEnv> => async (c) => {
  await c.var.auth.customProviders.delete({ ...adminCall(c), identifier: identifierOf(c) });
  return c.body(null, 204);
};
