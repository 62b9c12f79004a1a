import type { Migration } from "./migration.ts";

// Kept equal to src/schema/custom-providers.ts by test/schema-drift.test.ts. Custom OAuth 2.0 and OpenID Connect
// providers, GoTrue's custom_oauth_providers with its custom_claims_allowlist, and its checks but the https-only
// ones: with CUSTOM_OAUTH_ALLOW_LOOPBACK_URLS an admin may add http URLs on loopback, and the domain checks every URL
// anyway. The client secret is sealed by the server (Secrets.seal); the discovery document is the last one fetched.
// The unique key serves lookups by identifier, so GoTrue's separate index on it is left out. Constraints and indexes
// are named custom_providers_*, and GoTrue's six URL length checks are one, to fit 63 bytes with the longest namespace.
export const customProviders: Migration = {
  version: "0021_custom_providers",
  up: (ns) => `
CREATE TABLE "${ns}custom_oauth_providers" (
  "id" uuid NOT NULL,
  "provider_type" text NOT NULL,
  "identifier" text NOT NULL,
  "name" text NOT NULL,
  "client_id" text NOT NULL,
  "client_secret" text NOT NULL,
  "acceptable_client_ids" text[] NOT NULL,
  "scopes" text[] NOT NULL,
  "pkce_enabled" boolean NOT NULL,
  "attribute_mapping" jsonb NOT NULL,
  "authorization_params" jsonb NOT NULL,
  "enabled" boolean NOT NULL,
  "email_optional" boolean NOT NULL,
  "issuer" text,
  "discovery_url" text,
  "skip_nonce_check" boolean NOT NULL,
  "cached_discovery" jsonb,
  "discovery_cached_at" timestamptz,
  "authorization_url" text,
  "token_url" text,
  "userinfo_url" text,
  "jwks_uri" text,
  "created_at" timestamptz NOT NULL,
  "updated_at" timestamptz NOT NULL,
  "custom_claims_allowlist" text[] NOT NULL,
  CONSTRAINT "${ns}custom_providers_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}custom_providers_identifier_key" UNIQUE ("identifier"),
  CONSTRAINT "${ns}custom_providers_type_check" CHECK ("provider_type" IN ('oauth2', 'oidc')),
  CONSTRAINT "${ns}custom_providers_oidc_issuer" CHECK ("provider_type" <> 'oidc' OR "issuer" IS NOT NULL),
  CONSTRAINT "${ns}custom_providers_oauth2_endpoints" CHECK (
    "provider_type" <> 'oauth2' OR ("authorization_url" IS NOT NULL AND "token_url" IS NOT NULL AND "userinfo_url" IS NOT NULL)
  ),
  CONSTRAINT "${ns}custom_providers_identifier_format" CHECK ("identifier" ~ '^[a-z0-9][a-z0-9:-]{0,48}[a-z0-9]$'),
  CONSTRAINT "${ns}custom_providers_name_length" CHECK (char_length("name") BETWEEN 1 AND 100),
  CONSTRAINT "${ns}custom_providers_client_id_length" CHECK (char_length("client_id") BETWEEN 1 AND 512),
  CONSTRAINT "${ns}custom_providers_url_length" CHECK (
    ("issuer" IS NULL OR char_length("issuer") BETWEEN 1 AND 2048)
    AND coalesce(char_length("discovery_url"), 0) <= 2048
    AND coalesce(char_length("authorization_url"), 0) <= 2048
    AND coalesce(char_length("token_url"), 0) <= 2048
    AND coalesce(char_length("userinfo_url"), 0) <= 2048
    AND coalesce(char_length("jwks_uri"), 0) <= 2048
  )
);
CREATE INDEX "${ns}custom_providers_type_idx" ON "${ns}custom_oauth_providers" ("provider_type");
CREATE INDEX "${ns}custom_providers_created_at_idx" ON "${ns}custom_oauth_providers" ("created_at");
`,
};
