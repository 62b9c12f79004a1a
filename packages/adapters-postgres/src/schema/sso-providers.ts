import type { SamlAttributeMapping, SamlNameIdFormat } from "@latchkey/domain";
import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/**
 * `<ns>sso_providers`: SAML identity providers (SsoProvider). GoTrue keeps the SAML settings in a table of their
 * own, one row per provider; here they are columns of the provider (0019_sso_providers.ts).
 */
export function ssoProvidersTable(ns: string) {
  return pgTable(
    `${ns}sso_providers`,
    {
      id: uuid("id").notNull(),
      resourceId: text("resource_id"),
      disabled: boolean("disabled"),
      entityId: text("entity_id").notNull(),
      metadataXml: text("metadata_xml").notNull(),
      metadataUrl: text("metadata_url"),
      attributeMapping: jsonb("attribute_mapping").$type<SamlAttributeMapping>().notNull(),
      nameIdFormat: text("name_id_format").$type<SamlNameIdFormat>(),
      createdAt: timestamptz("created_at").notNull(),
      updatedAt: timestamptz("updated_at").notNull(),
    },
    (t) => [
      primaryKey({ name: `${ns}sso_providers_pkey`, columns: [t.id] }),
      unique(`${ns}sso_providers_entity_id_key`).on(t.entityId),
      check(`${ns}sso_providers_entity_id_not_empty`, sql`char_length(${t.entityId}) > 0`),
      check(
        `${ns}sso_providers_resource_id_not_empty`,
        sql`${t.resourceId} is null or char_length(${t.resourceId}) > 0`,
      ),
      // Unique without regard to case, as GoTrue's.
      uniqueIndex(`${ns}sso_providers_resource_id_idx`).on(sql`lower(${t.resourceId})`),
    ],
  );
}

export type SsoProvidersTable = ReturnType<typeof ssoProvidersTable>;

/** `<ns>sso_domains`: the email domains each provider signs in, lowercased, each held by one provider. */
export function ssoDomainsTable(ns: string, providers: SsoProvidersTable) {
  return pgTable(
    `${ns}sso_domains`,
    {
      providerId: uuid("provider_id").notNull(),
      domain: text("domain").notNull(),
    },
    (t) => [
      primaryKey({ name: `${ns}sso_domains_pkey`, columns: [t.domain] }),
      check(
        `${ns}sso_domains_domain_lowercase`,
        sql`${t.domain} = lower(${t.domain}) and char_length(${t.domain}) > 0`,
      ),
      foreignKey({
        name: `${ns}sso_domains_provider_id_fkey`,
        columns: [t.providerId],
        foreignColumns: [providers.id],
      }).onDelete("cascade"),
      index(`${ns}sso_domains_provider_id_idx`).on(t.providerId),
    ],
  );
}
