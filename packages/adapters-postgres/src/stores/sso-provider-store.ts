import { AuthError, isUuid, type SsoProvider, type SsoProviderStore } from "@latchkey/domain";
import { asc, eq, getTableName, like, sql } from "drizzle-orm";
import type { Database } from "../database.ts";
import type { Schema } from "../schema/create-schema.ts";
import type { Atomic } from "./atomic.ts";
import { violatedUniqueConstraint } from "./database-error.ts";

/**
 * SAML identity providers (`<ns>sso_providers`) with their domains (`<ns>sso_domains`, lowercased). A provider and
 * its domains are written together, all or nothing; what another provider holds already is told by the unique
 * constraint that refused it.
 */
export function createSsoProviderStore(db: Database, schema: Schema, atomic: Atomic): SsoProviderStore {
  const { ssoProviders: providers, ssoDomains: domains, namespace: ns } = schema;
  const domainsTable = sql.identifier(getTableName(domains));

  const rethrowConflict = (error: unknown): never => {
    const constraint = violatedUniqueConstraint(error);
    if (constraint === `${ns}sso_providers_entity_id_key`) {
      throw new AuthError("saml_idp_already_exists", "SAML Identity Provider with this EntityID already exists");
    }
    if (constraint === `${ns}sso_domains_pkey`) {
      throw new AuthError("sso_domain_already_exists", "SSO Domain is already assigned to an SSO identity provider");
    }
    if (constraint === `${ns}sso_providers_resource_id_idx`) {
      throw new AuthError("validation_failed", "resource_id is already used by another SSO provider");
    }
    throw error;
  };

  // Each provider with its domains in one row: the domains aggregated in order, none an empty array.
  const selectProviders = () =>
    db
      .select({
        provider: providers,
        domains: sql<string[]>`coalesce((select array_agg(d.domain order by d.domain) from ${domainsTable} d
          where d.provider_id = ${providers.id}), '{}')`,
      })
      .from(providers);

  type Row = Awaited<ReturnType<ReturnType<typeof selectProviders>["execute"]>>[number];
  const fromRow = ({ provider: p, domains: held }: Row): SsoProvider => ({
    id: p.id,
    resourceId: p.resourceId,
    disabled: p.disabled,
    saml: {
      entityId: p.entityId,
      metadataXml: p.metadataXml,
      metadataUrl: p.metadataUrl,
      attributeMapping: p.attributeMapping,
      nameIdFormat: p.nameIdFormat,
    },
    domains: held,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  });
  const toRow = (provider: SsoProvider) => ({
    id: provider.id,
    resourceId: provider.resourceId,
    disabled: provider.disabled,
    entityId: provider.saml.entityId,
    metadataXml: provider.saml.metadataXml,
    metadataUrl: provider.saml.metadataUrl,
    attributeMapping: provider.saml.attributeMapping,
    nameIdFormat: provider.saml.nameIdFormat,
    createdAt: provider.createdAt,
    updatedAt: provider.updatedAt,
  });
  const insertDomains = async (on: Database, provider: SsoProvider) => {
    if (provider.domains.length === 0) return;
    const lowercased = [...new Set(provider.domains.map((domain) => domain.toLowerCase()))];
    await on.insert(domains).values(lowercased.map((domain) => ({ providerId: provider.id, domain })));
  };
  const one = async (rows: Promise<Row[]>) => {
    const [row] = await rows;
    return row ? fromRow(row) : null;
  };

  return {
    async insert(provider) {
      await atomic(async (on) => {
        await on.insert(providers).values(toRow(provider));
        await insertDomains(on, provider);
      }).catch(rethrowConflict);
    },

    async find(id) {
      // Ids come from paths; one that is no uuid names no provider (and would be a type error).
      if (!isUuid(id)) return null;
      return one(selectProviders().where(eq(providers.id, id)));
    },

    async findByResourceId(resourceId) {
      return one(selectProviders().where(eq(providers.resourceId, resourceId)));
    },

    async findByDomain(domain) {
      return one(
        selectProviders().where(
          sql`${providers.id} = (select d.provider_id from ${domainsTable} d where d.domain = ${domain.toLowerCase()})`,
        ),
      );
    },

    async findByEntityId(entityId) {
      return one(selectProviders().where(eq(providers.entityId, entityId)));
    },

    async list(filter = {}) {
      const { resourceId, resourceIdPrefix } = filter;
      // The prefix is matched literally: LIKE's wildcards in it are escaped.
      const prefix = resourceIdPrefix?.replace(/[\\%_]/g, (char) => `\\${char}`);
      const where =
        resourceId !== undefined
          ? eq(providers.resourceId, resourceId)
          : prefix !== undefined
            ? like(providers.resourceId, `${prefix}%`)
            : undefined;
      const rows = await selectProviders().where(where).orderBy(asc(providers.createdAt), asc(providers.id));
      return rows.map(fromRow);
    },

    async update(provider) {
      if (!isUuid(provider.id)) return false;
      const { id: _id, createdAt: _createdAt, ...written } = toRow(provider);
      return atomic(async (on) => {
        const updated = await on
          .update(providers)
          .set(written)
          .where(eq(providers.id, provider.id))
          .returning({ id: providers.id });
        if (updated.length === 0) return false;
        await on.delete(domains).where(eq(domains.providerId, provider.id));
        await insertDomains(on, provider);
        return true;
      }).catch(rethrowConflict);
    },

    async delete(id) {
      if (!isUuid(id)) return false;
      const deleted = await db.delete(providers).where(eq(providers.id, id)).returning({ id: providers.id });
      return deleted.length > 0;
    },
  };
}
