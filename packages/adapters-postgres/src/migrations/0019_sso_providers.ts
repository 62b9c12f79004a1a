import type { Migration } from "./migration.ts";

// Kept equal to src/schema/sso-providers.ts by test/schema-drift.test.ts. SAML identity providers and their email
// domains. GoTrue splits a provider over sso_providers and saml_providers (one row each, as it meant to add other
// kinds); here the SAML settings are the provider's own columns. Domains are stored lowercased, so the key on them
// is GoTrue's case-blind uniqueness; resource ids keep their case, unique without regard to it, as GoTrue's.
export const ssoProviders: Migration = {
  version: "0019_sso_providers",
  up: (ns) => `
CREATE TABLE "${ns}sso_providers" (
  "id" uuid NOT NULL,
  "resource_id" text,
  "disabled" boolean,
  "entity_id" text NOT NULL,
  "metadata_xml" text NOT NULL,
  "metadata_url" text,
  "attribute_mapping" jsonb NOT NULL,
  "name_id_format" text,
  "created_at" timestamptz NOT NULL,
  "updated_at" timestamptz NOT NULL,
  CONSTRAINT "${ns}sso_providers_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}sso_providers_entity_id_key" UNIQUE ("entity_id"),
  CONSTRAINT "${ns}sso_providers_entity_id_not_empty" CHECK (char_length("entity_id") > 0),
  CONSTRAINT "${ns}sso_providers_resource_id_not_empty" CHECK ("resource_id" IS NULL OR char_length("resource_id") > 0)
);
CREATE UNIQUE INDEX "${ns}sso_providers_resource_id_idx" ON "${ns}sso_providers" (lower("resource_id"));
CREATE TABLE "${ns}sso_domains" (
  "provider_id" uuid NOT NULL,
  "domain" text NOT NULL,
  CONSTRAINT "${ns}sso_domains_pkey" PRIMARY KEY ("domain"),
  CONSTRAINT "${ns}sso_domains_domain_lowercase" CHECK ("domain" = lower("domain") AND char_length("domain") > 0),
  CONSTRAINT "${ns}sso_domains_provider_id_fkey" FOREIGN KEY ("provider_id")
    REFERENCES "${ns}sso_providers" ("id") ON DELETE CASCADE
);
CREATE INDEX "${ns}sso_domains_provider_id_idx" ON "${ns}sso_domains" ("provider_id");
`,
};
