import { type SsoProvider, type SsoProviderInput, timestamp } from "@latchkey/domain";
import type { Handler } from "hono";
import type * as v from "valibot";
import type { AppEnv } from "../app-env.ts";
import { readJson } from "../request/read-json.ts";
import { SsoProviderBody } from "../request/schemas.ts";

// SAML identity providers, the admin's registry (/admin/sso/providers), in GoTrue's JSON.

/** GoTrue's provider JSON: the metadata document left out of lists, absent fields left out. */
function presentProvider(provider: SsoProvider, { withMetadata = true } = {}) {
  const { saml } = provider;
  return {
    id: provider.id,
    ...(provider.resourceId === null ? {} : { resource_id: provider.resourceId }),
    disabled: provider.disabled,
    saml: {
      entity_id: saml.entityId,
      ...(withMetadata ? { metadata_xml: saml.metadataXml } : {}),
      ...(saml.metadataUrl === null ? {} : { metadata_url: saml.metadataUrl }),
      attribute_mapping: saml.attributeMapping,
      ...(saml.nameIdFormat === null ? {} : { name_id_format: saml.nameIdFormat }),
    },
    domains: provider.domains.map((domain) => ({ domain })),
    created_at: timestamp(provider.createdAt),
    updated_at: timestamp(provider.updatedAt),
  };
}

const inputOf = (body: v.InferOutput<typeof SsoProviderBody>): SsoProviderInput => ({
  type: body.type,
  metadataUrl: body.metadata_url,
  metadataXml: body.metadata_xml,
  domains: body.domains,
  attributeMapping: body.attribute_mapping,
  nameIdFormat: body.name_id_format,
  resourceId: body.resource_id,
  disabled: body.disabled,
});

const refOf = (c: Parameters<Handler<AppEnv>>[0]) => ({ provider: c.req.param("idp_id") ?? "" });

/** GET /admin/sso/providers: `{ items }`, oldest first; `?resource_id=` or `?resource_id_prefix=` filters. */
export const list = (): Handler<AppEnv> => async (c) => {
  const providers = await c.var.auth.sso.listProviders({
    resourceId: c.req.query("resource_id"),
    resourceIdPrefix: c.req.query("resource_id_prefix"),
  });
  return c.json({ items: providers.map((provider) => presentProvider(provider, { withMetadata: false })) });
};

/** POST /admin/sso/providers: 201. */
export const create = (): Handler<AppEnv> => async (c) => {
  const provider = await c.var.auth.sso.createProvider(inputOf(await readJson(c, SsoProviderBody)));
  return c.json(presentProvider(provider), 201);
};

/** GET /admin/sso/providers/<id or resource_<resource id>> */
export const get = (): Handler<AppEnv> => async (c) =>
  c.json(presentProvider(await c.var.auth.sso.getProvider(refOf(c))));

/** PUT /admin/sso/providers/<id>: the fields given. */
export const update = (): Handler<AppEnv> => async (c) => {
  const update = inputOf(await readJson(c, SsoProviderBody));
  return c.json(presentProvider(await c.var.auth.sso.updateProvider({ ...refOf(c), update })));
};

/** DELETE /admin/sso/providers/<id>: the provider as it was. */
export const remove = (): Handler<AppEnv> => async (c) =>
  c.json(presentProvider(await c.var.auth.sso.deleteProvider(refOf(c))));
