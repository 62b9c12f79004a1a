import type { Migration } from "./migration.ts";

// Kept equal to src/schema/oauth-clients.ts by test/schema-drift.test.ts. The OAuth server's clients, as Supabase
// Auth's `oauth_clients` stands after its later migrations: the id is the client_id, a public client has no secret,
// and a deletion only stamps deleted_at. Two departures: redirect URIs and grant types are text[] where GoTrue joins
// them with commas (a URI may hold a comma), and the enums are text with checks, as every other table here has them.
// Constraint names are shorter than GoTrue's would be, to fit 63 bytes after the longest namespace.
export const oauthClients: Migration = {
  version: "0015_oauth_clients",
  up: (ns) => `
CREATE TABLE "${ns}oauth_clients" (
  "id" uuid NOT NULL,
  "client_secret_hash" text,
  "registration_type" text NOT NULL,
  "client_type" text NOT NULL,
  "token_endpoint_auth_method" text NOT NULL,
  "redirect_uris" text[] NOT NULL,
  "grant_types" text[] NOT NULL,
  "client_name" text,
  "client_uri" text,
  "logo_uri" text,
  "created_at" timestamptz NOT NULL,
  "updated_at" timestamptz NOT NULL,
  "deleted_at" timestamptz,
  CONSTRAINT "${ns}oauth_clients_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}oauth_clients_registration_check" CHECK ("registration_type" IN ('dynamic', 'manual')),
  CONSTRAINT "${ns}oauth_clients_client_type_check" CHECK ("client_type" IN ('public', 'confidential')),
  CONSTRAINT "${ns}oauth_clients_auth_method_check"
    CHECK ("token_endpoint_auth_method" IN ('none', 'client_secret_basic', 'client_secret_post')),
  CONSTRAINT "${ns}oauth_clients_client_name_length" CHECK (char_length("client_name") <= 1024),
  CONSTRAINT "${ns}oauth_clients_client_uri_length" CHECK (char_length("client_uri") <= 2048),
  CONSTRAINT "${ns}oauth_clients_logo_uri_length" CHECK (char_length("logo_uri") <= 2048)
);
CREATE INDEX "${ns}oauth_clients_created_at_idx" ON "${ns}oauth_clients" ("created_at" DESC, "id" DESC)
  WHERE "deleted_at" IS NULL;
`,
};
