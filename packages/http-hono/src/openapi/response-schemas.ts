import * as v from "valibot";

// The bodies the API answers with, as valibot schemas: the source of the OpenAPI description's response schemas
// (openapi/document.ts), which the end-to-end tests hold every real answer to. Objects are strict (no key that is
// not listed), so a field added to a presenter without being described here fails those tests.

const text = v.string();
const timestamp = v.pipe(v.string(), v.isoTimestamp());
const uuid = v.pipe(v.string(), v.uuid());
const anyObject = v.record(v.string(), v.unknown());
/** Seconds since the epoch. */
const epochSeconds = v.pipe(v.number(), v.integer());

const Identity = v.strictObject({
  /** The row's id. GoTrue's names are swapped: `id` is the subject at the provider. */
  identity_id: uuid,
  id: text,
  user_id: uuid,
  identity_data: v.optional(anyObject),
  provider: text,
  last_sign_in_at: v.optional(timestamp),
  created_at: timestamp,
  updated_at: timestamp,
  email: v.optional(text),
});

export const Factor = v.strictObject({
  id: uuid,
  created_at: timestamp,
  updated_at: timestamp,
  status: v.picklist(["verified", "unverified"]),
  friendly_name: v.optional(text),
  factor_type: v.picklist(["totp", "phone", "webauthn"]),
  phone: text,
  last_challenged_at: v.nullable(timestamp),
  web_authn_aaguid: v.optional(text),
});

const userEntries = {
  id: uuid,
  aud: text,
  role: text,
  /** Empty when the user has none. */
  email: text,
  email_confirmed_at: v.optional(timestamp),
  invited_at: v.optional(timestamp),
  /** Empty when the user has none. */
  phone: text,
  phone_confirmed_at: v.optional(timestamp),
  confirmation_sent_at: v.optional(timestamp),
  confirmed_at: v.optional(timestamp),
  recovery_sent_at: v.optional(timestamp),
  new_email: v.optional(text),
  email_change_sent_at: v.optional(timestamp),
  new_phone: v.optional(text),
  phone_change_sent_at: v.optional(timestamp),
  reauthentication_sent_at: v.optional(timestamp),
  last_sign_in_at: v.optional(timestamp),
  app_metadata: anyObject,
  user_metadata: anyObject,
  identities: v.array(Identity),
  /** Absent when the user has none. */
  factors: v.optional(v.array(Factor)),
  created_at: timestamp,
  updated_at: timestamp,
  banned_until: v.optional(timestamp),
  deleted_at: v.optional(timestamp),
  is_anonymous: v.boolean(),
};

export const User = v.strictObject(userEntries);

const WeakPassword = v.strictObject({ reasons: v.array(text) });

const sessionEntries = {
  access_token: text,
  token_type: v.literal("bearer"),
  expires_in: epochSeconds,
  expires_at: epochSeconds,
  refresh_token: text,
  user: User,
  provider_token: v.optional(text),
  provider_refresh_token: v.optional(text),
  weak_password: v.optional(WeakPassword),
};

/** A token response: the session, with the user. */
export const Session = v.strictObject(sessionEntries);

/** POST /verify: a session, naming the verification; or, for an email change awaiting its other address, a note. */
export const VerifyAnswer = v.union([
  v.strictObject({ ...sessionEntries, type: text }),
  v.strictObject({ msg: text, code: v.literal("200") }),
]);

/** POST /signup: a session when the user is signed in at once, else the user awaiting confirmation. */
export const SignUpAnswer = v.union([Session, User]);

const LegacyError = v.strictObject({
  /** The HTTP status. */
  code: v.pipe(v.number(), v.integer()),
  error_code: text,
  msg: text,
  /** On 5xx answers: the request's id, to find it in the log. */
  error_id: v.optional(text),
  weak_password: v.optional(WeakPassword),
});

/** With `X-Supabase-Api-Version: 2024-01-01` or later. */
const Error2024 = v.strictObject({
  code: text,
  message: text,
  error_id: v.optional(text),
  weak_password: v.optional(WeakPassword),
});

/** The few OAuth-style errors (RFC 6749 5.2). */
const OAuthError = v.strictObject({ error: text, error_description: text });

const ErrorBody = v.union([LegacyError, Error2024, OAuthError]);

export const Empty = v.strictObject({});
export const MaybeMessageId = v.strictObject({ message_id: v.optional(text) });
export const Url = v.strictObject({ url: text });

export const Health = v.strictObject({ version: text, name: text, description: text });
/** Each dependency checked: "ok" or "unavailable". */
export const Readiness = v.record(v.string(), v.picklist(["ok", "unavailable"]));

export const PublicSettings = v.strictObject({
  external: v.record(v.string(), v.boolean()),
  disable_signup: v.boolean(),
  autoconfirm: v.boolean(),
  mailer_autoconfirm: v.boolean(),
  phone_autoconfirm: v.boolean(),
  sms_provider: text,
  saml_enabled: v.boolean(),
  saml_private_key_next_configured: v.boolean(),
  passkeys_enabled: v.boolean(),
});

export const Jwks = v.strictObject({ keys: v.array(v.looseObject({ kty: text })) });
/** OpenID Connect discovery and RFC 8414 metadata: the fields vary with what is switched on. */
export const ServerMetadata = v.looseObject({ issuer: text, jwks_uri: text });

export const UserList = v.strictObject({ users: v.array(User), aud: text });

export const AuditEntry = v.strictObject({
  id: uuid,
  payload: v.strictObject({
    actor_id: text,
    actor_via_sso: v.boolean(),
    actor_username: text,
    actor_name: v.optional(text),
    action: text,
    log_type: text,
    traits: v.optional(anyObject),
  }),
  created_at: timestamp,
  ip_address: text,
});

export const GeneratedLink = v.strictObject({
  ...userEntries,
  action_link: text,
  email_otp: text,
  hashed_token: text,
  verification_type: text,
  redirect_to: text,
});

export const EnrolledFactor = v.strictObject({
  id: uuid,
  type: v.picklist(["totp", "phone", "webauthn"]),
  friendly_name: text,
  totp: v.optional(v.strictObject({ qr_code: text, secret: text, uri: text })),
  phone: v.optional(text),
});

export const Challenge = v.strictObject({
  id: uuid,
  type: v.picklist(["totp", "phone", "webauthn"]),
  expires_at: epochSeconds,
  webauthn: v.optional(v.strictObject({ type: text, credential_options: v.unknown() })),
});

export const Id = v.strictObject({ id: uuid });

export const Passkey = v.strictObject({
  id: uuid,
  friendly_name: v.optional(text),
  created_at: timestamp,
  last_used_at: v.optional(timestamp),
});

/** A WebAuthn ceremony begun: the browser's options, and the challenge to answer. */
export const Ceremony = v.strictObject({ challenge_id: uuid, options: anyObject, expires_at: epochSeconds });

export const OAuthClient = v.strictObject({
  client_id: text,
  /** Only when just issued. */
  client_secret: v.optional(text),
  client_secret_expires_at: v.optional(v.number()),
  client_type: text,
  redirect_uris: v.array(text),
  token_endpoint_auth_method: text,
  grant_types: v.array(text),
  response_types: v.array(text),
  client_name: v.optional(text),
  client_uri: v.optional(text),
  logo_uri: v.optional(text),
  registration_type: text,
  created_at: timestamp,
  updated_at: timestamp,
});

export const OAuthClientList = v.strictObject({ clients: v.array(OAuthClient) });

const ClientDetails = v.strictObject({
  id: text,
  name: v.optional(text),
  uri: v.optional(text),
  logo_uri: v.optional(text),
});

export const RedirectUrl = v.strictObject({ redirect_url: text });

/** GET /oauth/authorizations/<id>: the request for the consent page, or where to go when consented before. */
export const AuthorizationView = v.union([
  v.strictObject({
    authorization_id: text,
    redirect_uri: text,
    client: ClientDetails,
    user: v.strictObject({ id: uuid, email: v.optional(text) }),
    scope: text,
  }),
  RedirectUrl,
]);

export const OAuthTokens = v.strictObject({
  access_token: text,
  token_type: text,
  expires_in: v.number(),
  refresh_token: text,
  scope: text,
  id_token: v.optional(text),
});

export const UserInfo = v.looseObject({ sub: text });

export const Grant = v.strictObject({ client: ClientDetails, scopes: v.array(text), granted_at: timestamp });

export const SsoProvider = v.strictObject({
  id: uuid,
  resource_id: v.optional(text),
  /** Null when never set, as GoTrue reports it. */
  disabled: v.nullable(v.boolean()),
  saml: v.strictObject({
    entity_id: text,
    metadata_xml: v.optional(text),
    metadata_url: v.optional(text),
    attribute_mapping: anyObject,
    name_id_format: v.optional(text),
  }),
  domains: v.array(v.strictObject({ domain: text })),
  created_at: timestamp,
  updated_at: timestamp,
});

export const SsoProviderList = v.strictObject({ items: v.array(SsoProvider) });

export const CustomProvider = v.strictObject({
  id: uuid,
  provider_type: v.picklist(["oauth2", "oidc"]),
  identifier: text,
  name: text,
  client_id: text,
  acceptable_client_ids: v.array(text),
  scopes: v.array(text),
  pkce_enabled: v.boolean(),
  attribute_mapping: anyObject,
  custom_claims_allowlist: v.array(text),
  authorization_params: v.record(v.string(), v.string()),
  enabled: v.boolean(),
  email_optional: v.boolean(),
  issuer: v.optional(text),
  discovery_url: v.optional(text),
  skip_nonce_check: v.boolean(),
  discovery_document: v.optional(anyObject),
  authorization_url: v.optional(text),
  token_url: v.optional(text),
  userinfo_url: v.optional(text),
  jwks_uri: v.optional(text),
  created_at: timestamp,
  updated_at: timestamp,
});

export const CustomProviderList = v.strictObject({ providers: v.array(CustomProvider) });

/** A session as the admin sees it (Latchkey's own). */
const AdminSession = v.strictObject({
  id: uuid,
  user_id: uuid,
  created_at: timestamp,
  updated_at: timestamp,
  refreshed_at: v.nullable(timestamp),
  not_after: v.nullable(timestamp),
  aal: v.picklist(["aal1", "aal2"]),
  factor_id: v.nullable(uuid),
  user_agent: v.nullable(text),
  ip: v.nullable(text),
});

export const AdminSessionList = v.strictObject({ sessions: v.array(AdminSession) });

/** The settings the server started with (Latchkey's own), secrets redacted. */
export const EffectiveSettings = v.strictObject({
  profile: v.picklist(["production", "development"]),
  settings: v.array(v.strictObject({ name: text, value: v.nullable(text), source: text })),
});

/** This document. */
export const OpenApi = v.looseObject({ openapi: text });

/** The named schemas of the description's components, each referred to by its name. */
export const COMPONENTS = {
  User,
  Identity,
  Factor,
  Session,
  ErrorBody,
  LegacyError,
  Error2024,
  OAuthError,
  AuditEntry,
  Passkey,
  OAuthClient,
  SsoProvider,
  CustomProvider,
} as const;
