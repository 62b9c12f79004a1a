// A GoTrue (Supabase Auth) database as GoTrue's migrations leave it, written from the schema facts
// (shared/reference/gotrue-contract.md §9, keys-otel-captcha-mfa.md D): the tables, columns and types the importer
// reads, with GoTrue's defaults, generated columns, enums and constraints. Not a copy of the migrations: no RLS, no
// SQL functions, no SAML relay state, OAuth-server, flow-state or WebAuthn challenge tables. Passkeys
// (`webauthn_credentials`) as 20260302000000_add_passkeys makes them; SSO providers (`sso_providers`,
// `saml_providers`, `sso_domains`) as 20221021082433_add_saml, 20240314092811_add_saml_name_id_format and
// 20250717082212_add_disabled_to_sso_providers leave them.

/** The newest migration of GoTrue at the time of writing (20260625000000_add_custom_claims_allowlist). */
export const GOTRUE_SCHEMA_VERSION = "20260625000000";

/** The DDL of GoTrue's tables in the schema `s` (already quoted). */
export function gotrueSchemaSql(s: string): string {
  return `
create schema ${s};

create type ${s}.aal_level as enum ('aal1', 'aal2', 'aal3');
create type ${s}.factor_type as enum ('totp', 'webauthn', 'phone');
create type ${s}.factor_status as enum ('unverified', 'verified');
create type ${s}.one_time_token_type as enum (
  'confirmation_token', 'reauthentication_token', 'recovery_token',
  'email_change_token_new', 'email_change_token_current', 'phone_change_token'
);

create table ${s}.schema_migrations (version varchar(255) not null primary key);

create table ${s}.users (
  instance_id uuid,
  id uuid not null primary key,
  aud varchar(255),
  role varchar(255),
  email varchar(255),
  encrypted_password varchar(255),
  email_confirmed_at timestamptz,
  invited_at timestamptz,
  confirmation_token varchar(255),
  confirmation_sent_at timestamptz,
  recovery_token varchar(255),
  recovery_sent_at timestamptz,
  email_change_token_new varchar(255),
  email_change varchar(255),
  email_change_sent_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb,
  raw_user_meta_data jsonb,
  is_super_admin boolean,
  created_at timestamptz,
  updated_at timestamptz,
  phone text unique default null,
  phone_confirmed_at timestamptz,
  phone_change text default '',
  phone_change_token varchar(255) default '',
  phone_change_sent_at timestamptz,
  confirmed_at timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
  email_change_token_current varchar(255) default '',
  email_change_confirm_status smallint default 0
    check (email_change_confirm_status >= 0 and email_change_confirm_status <= 2),
  banned_until timestamptz,
  reauthentication_token varchar(255) default '',
  reauthentication_sent_at timestamptz,
  is_sso_user boolean not null default false,
  deleted_at timestamptz,
  is_anonymous boolean not null default false
);
create unique index users_email_partial_key on ${s}.users (email) where is_sso_user = false;
create index users_instance_id_idx on ${s}.users (instance_id);
create unique index confirmation_token_idx on ${s}.users (confirmation_token) where confirmation_token !~ '^[0-9 ]*$';
create unique index recovery_token_idx on ${s}.users (recovery_token) where recovery_token !~ '^[0-9 ]*$';
create unique index email_change_token_current_idx on ${s}.users (email_change_token_current)
  where email_change_token_current !~ '^[0-9 ]*$';
create unique index email_change_token_new_idx on ${s}.users (email_change_token_new)
  where email_change_token_new !~ '^[0-9 ]*$';
create unique index reauthentication_token_idx on ${s}.users (reauthentication_token)
  where reauthentication_token !~ '^[0-9 ]*$';

create table ${s}.identities (
  provider_id text not null,
  user_id uuid not null references ${s}.users (id) on delete cascade,
  identity_data jsonb not null,
  provider text not null,
  last_sign_in_at timestamptz,
  created_at timestamptz,
  updated_at timestamptz,
  email text generated always as (lower(identity_data ->> 'email')) stored,
  id uuid not null default gen_random_uuid() primary key,
  constraint identities_provider_id_provider_unique unique (provider_id, provider)
);
create index identities_user_id_idx on ${s}.identities (user_id);

create table ${s}.sessions (
  id uuid not null primary key,
  user_id uuid not null references ${s}.users (id) on delete cascade,
  created_at timestamptz,
  updated_at timestamptz,
  factor_id uuid,
  aal ${s}.aal_level,
  not_after timestamptz,
  refreshed_at timestamp without time zone,
  user_agent text,
  ip inet,
  tag text,
  oauth_client_id uuid,
  scopes text constraint sessions_scopes_length check (char_length(scopes) <= 4096),
  refresh_token_hmac_key text,
  refresh_token_counter bigint
);
create index sessions_user_id_idx on ${s}.sessions (user_id);

create table ${s}.refresh_tokens (
  instance_id uuid,
  id bigserial not null primary key,
  token varchar(255) constraint refresh_tokens_token_unique unique,
  user_id varchar(255),
  revoked boolean,
  created_at timestamptz,
  updated_at timestamptz,
  parent varchar(255),
  session_id uuid references ${s}.sessions (id) on delete cascade
);
create index refresh_tokens_parent_idx on ${s}.refresh_tokens (parent);
create index refresh_tokens_session_id_revoked_idx on ${s}.refresh_tokens (session_id, revoked);

create table ${s}.mfa_factors (
  id uuid not null primary key,
  user_id uuid not null references ${s}.users (id) on delete cascade,
  friendly_name text,
  factor_type ${s}.factor_type not null,
  status ${s}.factor_status not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  secret text,
  phone text default null,
  last_challenged_at timestamptz unique default null,
  web_authn_credential jsonb,
  web_authn_aaguid uuid,
  last_webauthn_challenge_data jsonb
);
create unique index mfa_factors_user_friendly_name_unique on ${s}.mfa_factors (friendly_name, user_id)
  where trim(friendly_name) <> '';
create unique index unique_phone_factor_per_user on ${s}.mfa_factors (user_id, phone);

create table ${s}.webauthn_credentials (
  id uuid not null default gen_random_uuid(),
  user_id uuid not null references ${s}.users (id) on delete cascade,
  credential_id bytea not null,
  public_key bytea not null,
  attestation_type text not null default '',
  aaguid uuid,
  sign_count bigint not null default 0,
  transports jsonb not null default '[]'::jsonb,
  backup_eligible boolean not null default false,
  backed_up boolean not null default false,
  friendly_name text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_used_at timestamptz,
  constraint webauthn_credentials_pkey primary key (id)
);
create unique index webauthn_credentials_credential_id_key on ${s}.webauthn_credentials (credential_id);
create index webauthn_credentials_user_id_idx on ${s}.webauthn_credentials (user_id);

create table ${s}.mfa_challenges (
  id uuid not null primary key,
  factor_id uuid not null references ${s}.mfa_factors (id) on delete cascade,
  created_at timestamptz not null,
  verified_at timestamptz,
  ip_address inet not null,
  otp_code text,
  web_authn_session_data jsonb
);

create table ${s}.mfa_amr_claims (
  session_id uuid not null references ${s}.sessions (id) on delete cascade,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  authentication_method text not null,
  id uuid not null constraint amr_id_pk primary key,
  constraint mfa_amr_claims_session_id_authentication_method_pkey unique (session_id, authentication_method)
);

create table ${s}.one_time_tokens (
  id uuid primary key,
  user_id uuid not null references ${s}.users (id) on delete cascade,
  token_type ${s}.one_time_token_type not null,
  token_hash text not null check (char_length(token_hash) > 0),
  relates_to text not null,
  created_at timestamp without time zone not null default now(),
  updated_at timestamp without time zone not null default now()
);
create index one_time_tokens_token_hash_hash_idx on ${s}.one_time_tokens using hash (token_hash);
create index one_time_tokens_relates_to_hash_idx on ${s}.one_time_tokens using hash (relates_to);
create unique index one_time_tokens_user_id_token_type_key on ${s}.one_time_tokens (user_id, token_type);

create table ${s}.sso_providers (
  id uuid not null primary key,
  resource_id text null,
  created_at timestamptz null,
  updated_at timestamptz null,
  disabled boolean null,
  -- GoTrue's own check: "= null" is never true, so it holds whatever the value.
  constraint "resource_id not empty" check (resource_id = null or char_length(resource_id) > 0)
);
create unique index sso_providers_resource_id_idx on ${s}.sso_providers (lower(resource_id));
create index sso_providers_resource_id_pattern_idx on ${s}.sso_providers (resource_id text_pattern_ops);

create table ${s}.sso_domains (
  id uuid not null primary key,
  sso_provider_id uuid not null references ${s}.sso_providers (id) on delete cascade,
  domain text not null,
  created_at timestamptz null,
  updated_at timestamptz null,
  constraint "domain not empty" check (char_length(domain) > 0)
);
create index sso_domains_sso_provider_id_idx on ${s}.sso_domains (sso_provider_id);
create unique index sso_domains_domain_idx on ${s}.sso_domains (lower(domain));

create table ${s}.saml_providers (
  id uuid not null primary key,
  sso_provider_id uuid not null references ${s}.sso_providers (id) on delete cascade,
  entity_id text not null unique,
  metadata_xml text not null,
  metadata_url text null,
  attribute_mapping jsonb null,
  created_at timestamptz null,
  updated_at timestamptz null,
  name_id_format text null,
  constraint "metadata_xml not empty" check (char_length(metadata_xml) > 0),
  constraint "metadata_url not empty" check (metadata_url = null or char_length(metadata_url) > 0),
  constraint "entity_id not empty" check (char_length(entity_id) > 0)
);
create index saml_providers_sso_provider_id_idx on ${s}.saml_providers (sso_provider_id);

create table ${s}.audit_log_entries (
  instance_id uuid,
  id uuid not null primary key,
  payload json,
  created_at timestamptz,
  ip_address varchar(64) not null default ''
);
`;
}
