import { AuthError, type CustomProvider, type CustomProviderStore, isUuid, type OidcDiscovery } from "@latchkey/domain";
import { count, desc, eq } from "drizzle-orm";
import type { Database } from "../database.ts";
import type { Schema } from "../schema/create-schema.ts";
import type { StoredOidcDiscovery } from "../schema/custom-providers.ts";
import { violatedUniqueConstraint } from "./database-error.ts";

/** The document in GoTrue's JSON, absent fields left out, as GoTrue writes `cached_discovery`. */
function storedDiscovery(document: OidcDiscovery): StoredOidcDiscovery {
  return {
    issuer: document.issuer,
    authorization_endpoint: document.authorizationEndpoint,
    token_endpoint: document.tokenEndpoint,
    ...(document.userinfoEndpoint ? { userinfo_endpoint: document.userinfoEndpoint } : {}),
    jwks_uri: document.jwksUri,
    ...(document.scopesSupported ? { scopes_supported: [...document.scopesSupported] } : {}),
    ...(document.responseTypesSupported ? { response_types_supported: [...document.responseTypesSupported] } : {}),
    ...(document.grantTypesSupported ? { grant_types_supported: [...document.grantTypesSupported] } : {}),
    ...(document.subjectTypesSupported ? { subject_types_supported: [...document.subjectTypesSupported] } : {}),
  };
}

function discoveryOf(stored: StoredOidcDiscovery): OidcDiscovery {
  return {
    issuer: stored.issuer,
    authorizationEndpoint: stored.authorization_endpoint,
    tokenEndpoint: stored.token_endpoint,
    userinfoEndpoint: stored.userinfo_endpoint || null,
    jwksUri: stored.jwks_uri,
    scopesSupported: stored.scopes_supported ?? null,
    responseTypesSupported: stored.response_types_supported ?? null,
    grantTypesSupported: stored.grant_types_supported ?? null,
    subjectTypesSupported: stored.subject_types_supported ?? null,
  };
}

/**
 * Custom OAuth/OIDC providers (`<ns>custom_oauth_providers`), one row each; an identifier another holds is told by
 * the unique constraint that refused it.
 */
export function createCustomProviderStore(db: Database, schema: Schema): CustomProviderStore {
  const { customProviders: providers, namespace: ns } = schema;

  const rethrowConflict = (error: unknown): never => {
    if (violatedUniqueConstraint(error) === `${ns}custom_providers_identifier_key`) {
      throw new AuthError("conflict", "A custom OAuth provider with this identifier already exists");
    }
    throw error;
  };

  type Row = typeof providers.$inferSelect;
  const fromRow = (row: Row): CustomProvider => ({
    id: row.id,
    providerType: row.providerType,
    identifier: row.identifier,
    name: row.name,
    clientId: row.clientId,
    sealedClientSecret: row.clientSecret,
    acceptableClientIds: row.acceptableClientIds,
    scopes: row.scopes,
    pkceEnabled: row.pkceEnabled,
    attributeMapping: row.attributeMapping,
    customClaimsAllowlist: row.customClaimsAllowlist,
    authorizationParams: row.authorizationParams,
    enabled: row.enabled,
    emailOptional: row.emailOptional,
    issuer: row.issuer,
    discoveryUrl: row.discoveryUrl,
    skipNonceCheck: row.skipNonceCheck,
    discovery: row.cachedDiscovery ? discoveryOf(row.cachedDiscovery) : null,
    discoveryCachedAt: row.discoveryCachedAt,
    authorizationUrl: row.authorizationUrl,
    tokenUrl: row.tokenUrl,
    userinfoUrl: row.userinfoUrl,
    jwksUri: row.jwksUri,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  });
  const toRow = (provider: CustomProvider): Row => ({
    id: provider.id,
    providerType: provider.providerType,
    identifier: provider.identifier,
    name: provider.name,
    clientId: provider.clientId,
    clientSecret: provider.sealedClientSecret,
    acceptableClientIds: [...provider.acceptableClientIds],
    scopes: [...provider.scopes],
    pkceEnabled: provider.pkceEnabled,
    attributeMapping: provider.attributeMapping,
    customClaimsAllowlist: [...provider.customClaimsAllowlist],
    authorizationParams: provider.authorizationParams,
    enabled: provider.enabled,
    emailOptional: provider.emailOptional,
    issuer: provider.issuer,
    discoveryUrl: provider.discoveryUrl,
    skipNonceCheck: provider.skipNonceCheck,
    cachedDiscovery: provider.discovery ? storedDiscovery(provider.discovery) : null,
    discoveryCachedAt: provider.discoveryCachedAt,
    authorizationUrl: provider.authorizationUrl,
    tokenUrl: provider.tokenUrl,
    userinfoUrl: provider.userinfoUrl,
    jwksUri: provider.jwksUri,
    createdAt: provider.createdAt,
    updatedAt: provider.updatedAt,
  });
  const newestFirst = [desc(providers.createdAt), desc(providers.id)];

  return {
    async insert(provider) {
      await db.insert(providers).values(toRow(provider)).catch(rethrowConflict);
    },

    async findByIdentifier(identifier) {
      const [row] = await db.select().from(providers).where(eq(providers.identifier, identifier));
      return row ? fromRow(row) : null;
    },

    async list(filter = {}) {
      const { type } = filter;
      const rows = await db
        .select()
        .from(providers)
        .where(type === undefined ? undefined : eq(providers.providerType, type))
        .orderBy(...newestFirst);
      return rows.map(fromRow);
    },

    async count() {
      const [row] = await db.select({ n: count() }).from(providers);
      return row?.n ?? 0;
    },

    async update(provider) {
      if (!isUuid(provider.id)) return false;
      const { id: _id, identifier: _identifier, createdAt: _createdAt, ...written } = toRow(provider);
      const updated = await db
        .update(providers)
        .set(written)
        .where(eq(providers.id, provider.id))
        .returning({ id: providers.id });
      return updated.length > 0;
    },

    async delete(identifier) {
      const deleted = await db
        .delete(providers)
        .where(eq(providers.identifier, identifier))
        .returning({ id: providers.id });
      return deleted.length > 0;
    },
  };
}
