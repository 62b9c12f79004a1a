import type { CustomProviderType, Metadata } from "@latchkey/domain";
import { sql } from "drizzle-orm";
import { boolean, check, index, jsonb, pgTable, primaryKey, text, unique, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/** A discovery document as `cached_discovery` holds it: GoTrue's OIDCDiscovery JSON, snake_case. */
export interface StoredOidcDiscovery {
  readonly issuer: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly userinfo_endpoint?: string;
  readonly jwks_uri: string;
  readonly scopes_supported?: string[];
  readonly response_types_supported?: string[];
  readonly grant_types_supported?: string[];
  readonly subject_types_supported?: string[];
}

/**
 * `<ns>custom_oauth_providers`: the OAuth 2.0 and OpenID Connect providers admins add (CustomProvider), GoTrue's
 * table (0021_custom_providers.ts) without its https-only checks: the domain checks URLs, and lets http through
 * when CUSTOM_OAUTH_ALLOW_LOOPBACK_URLS says so.
 */
export function customProvidersTable(ns: string) {
  return pgTable(
    `${ns}custom_oauth_providers`,
    {
      id: uuid("id").notNull(),
      providerType: text("provider_type").$type<CustomProviderType>().notNull(),
      identifier: text("identifier").notNull(),
      name: text("name").notNull(),
      clientId: text("client_id").notNull(),
      clientSecret: text("client_secret").notNull(),
      acceptableClientIds: text("acceptable_client_ids").array().notNull(),
      scopes: text("scopes").array().notNull(),
      pkceEnabled: boolean("pkce_enabled").notNull(),
      attributeMapping: jsonb("attribute_mapping").$type<Metadata>().notNull(),
      authorizationParams: jsonb("authorization_params").$type<Record<string, string>>().notNull(),
      enabled: boolean("enabled").notNull(),
      emailOptional: boolean("email_optional").notNull(),
      issuer: text("issuer"),
      discoveryUrl: text("discovery_url"),
      skipNonceCheck: boolean("skip_nonce_check").notNull(),
      cachedDiscovery: jsonb("cached_discovery").$type<StoredOidcDiscovery>(),
      discoveryCachedAt: timestamptz("discovery_cached_at"),
      authorizationUrl: text("authorization_url"),
      tokenUrl: text("token_url"),
      userinfoUrl: text("userinfo_url"),
      jwksUri: text("jwks_uri"),
      createdAt: timestamptz("created_at").notNull(),
      updatedAt: timestamptz("updated_at").notNull(),
      customClaimsAllowlist: text("custom_claims_allowlist").array().notNull(),
    },
    (t) => [
      // Named custom_providers_*: custom_oauth_providers_* would not fit 63 bytes with the longest namespace.
      primaryKey({ name: `${ns}custom_providers_pkey`, columns: [t.id] }),
      unique(`${ns}custom_providers_identifier_key`).on(t.identifier),
      check(`${ns}custom_providers_type_check`, sql`${t.providerType} in ('oauth2', 'oidc')`),
      check(`${ns}custom_providers_oidc_issuer`, sql`${t.providerType} <> 'oidc' or ${t.issuer} is not null`),
      check(
        `${ns}custom_providers_oauth2_endpoints`,
        sql`${t.providerType} <> 'oauth2' or (${t.authorizationUrl} is not null and ${t.tokenUrl} is not null and ${t.userinfoUrl} is not null)`,
      ),
      check(`${ns}custom_providers_identifier_format`, sql`${t.identifier} ~ '^[a-z0-9][a-z0-9:-]{0,48}[a-z0-9]$'`),
      check(`${ns}custom_providers_name_length`, sql`char_length(${t.name}) between 1 and 100`),
      check(`${ns}custom_providers_client_id_length`, sql`char_length(${t.clientId}) between 1 and 512`),
      // GoTrue's one check per URL, as one: each at most 2048 characters, an issuer not empty.
      check(
        `${ns}custom_providers_url_length`,
        sql`(${t.issuer} is null or char_length(${t.issuer}) between 1 and 2048)
          and coalesce(char_length(${t.discoveryUrl}), 0) <= 2048
          and coalesce(char_length(${t.authorizationUrl}), 0) <= 2048
          and coalesce(char_length(${t.tokenUrl}), 0) <= 2048
          and coalesce(char_length(${t.userinfoUrl}), 0) <= 2048
          and coalesce(char_length(${t.jwksUri}), 0) <= 2048`,
      ),
      index(`${ns}custom_providers_type_idx`).on(t.providerType),
      index(`${ns}custom_providers_created_at_idx`).on(t.createdAt),
    ],
  );
}
