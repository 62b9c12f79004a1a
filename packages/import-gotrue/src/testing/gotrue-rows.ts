// GoTrue's rows as node-postgres reads them from the tables of gotrue-schema.ts.

/** The instance_id GoTrue's server writes (uuid.Nil). */
export const NIL_UUID = "00000000-0000-0000-0000-000000000000";

export type Aal = "aal1" | "aal2" | "aal3";
export type FactorType = "totp" | "webauthn" | "phone";
export type FactorStatus = "unverified" | "verified";
export type OneTimeTokenType =
  | "confirmation_token"
  | "reauthentication_token"
  | "recovery_token"
  | "email_change_token_new"
  | "email_change_token_current"
  | "phone_change_token";
export type Json = Record<string, unknown>;

/** A `users` row as node-postgres reads it. */
export interface GotrueUser {
  instance_id: string | null;
  id: string;
  aud: string | null;
  role: string | null;
  email: string | null;
  encrypted_password: string | null;
  email_confirmed_at: Date | null;
  invited_at: Date | null;
  confirmation_token: string | null;
  confirmation_sent_at: Date | null;
  recovery_token: string | null;
  recovery_sent_at: Date | null;
  email_change_token_new: string | null;
  email_change: string | null;
  email_change_sent_at: Date | null;
  last_sign_in_at: Date | null;
  raw_app_meta_data: Json | null;
  raw_user_meta_data: Json | null;
  is_super_admin: boolean | null;
  created_at: Date | null;
  updated_at: Date | null;
  /** Digits only, no '+'. */
  phone: string | null;
  phone_confirmed_at: Date | null;
  phone_change: string | null;
  phone_change_token: string | null;
  phone_change_sent_at: Date | null;
  /** Generated: least(email_confirmed_at, phone_confirmed_at). */
  confirmed_at: Date | null;
  email_change_token_current: string | null;
  email_change_confirm_status: number | null;
  banned_until: Date | null;
  reauthentication_token: string | null;
  reauthentication_sent_at: Date | null;
  is_sso_user: boolean;
  deleted_at: Date | null;
  is_anonymous: boolean;
}

export interface GotrueIdentity {
  provider_id: string;
  user_id: string;
  identity_data: Json;
  provider: string;
  last_sign_in_at: Date | null;
  created_at: Date | null;
  updated_at: Date | null;
  /** Generated: lower(identity_data->>'email'). */
  email: string | null;
  id: string;
}

export interface GotrueSession {
  id: string;
  user_id: string;
  created_at: Date | null;
  updated_at: Date | null;
  factor_id: string | null;
  aal: Aal | null;
  not_after: Date | null;
  /** timestamp without time zone holding UTC; the fixture's client reads it as UTC. */
  refreshed_at: Date | null;
  user_agent: string | null;
  ip: string | null;
  tag: string | null;
  oauth_client_id: string | null;
  scopes: string | null;
  refresh_token_hmac_key: string | null;
  refresh_token_counter: number | null;
}

export interface GotrueRefreshToken {
  instance_id: string | null;
  id: number;
  token: string | null;
  user_id: string | null;
  revoked: boolean | null;
  created_at: Date | null;
  updated_at: Date | null;
  parent: string | null;
  session_id: string | null;
}

export interface GotrueAmrClaim {
  session_id: string;
  created_at: Date;
  updated_at: Date;
  authentication_method: string;
  id: string;
}

export interface GotrueFactor {
  id: string;
  user_id: string;
  friendly_name: string | null;
  factor_type: FactorType;
  status: FactorStatus;
  created_at: Date;
  updated_at: Date;
  secret: string | null;
  phone: string | null;
  last_challenged_at: Date | null;
  web_authn_credential: GotrueWebAuthnCredential | Json | null;
  web_authn_aaguid: string | null;
  last_webauthn_challenge_data: Json | null;
}

/**
 * A `webauthn_credentials` row (a passkey) as node-postgres reads it: bytea as Buffer, sign_count (bigint) as a
 * number here (pg hands over a string), transports parsed.
 */
export interface GotruePasskey {
  id: string;
  user_id: string;
  credential_id: Buffer;
  public_key: Buffer;
  attestation_type: string;
  aaguid: string | null;
  sign_count: number;
  transports: string[];
  backup_eligible: boolean;
  backed_up: boolean;
  /** '' when unnamed. */
  friendly_name: string;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
}

/**
 * What a verified WebAuthn factor's `web_authn_credential` holds: go-webauthn's webauthn.Credential as Go's
 * encoding/json writes it (v0.16), []byte as standard base64 (nil as null).
 */
export interface GotrueWebAuthnCredential {
  id: string;
  publicKey: string;
  attestationType: string;
  transport: string[] | null;
  flags: { userPresent: boolean; userVerified: boolean; backupEligible: boolean; backupState: boolean };
  authenticator: { AAGUID: string | null; signCount: number; cloneWarning: boolean; attachment: string };
  attestation: Json;
}

export interface GotrueChallenge {
  id: string;
  factor_id: string;
  created_at: Date;
  verified_at: Date | null;
  ip_address: string;
  otp_code: string | null;
  web_authn_session_data: Json | null;
}

export interface GotrueOneTimeToken {
  id: string;
  user_id: string;
  token_type: OneTimeTokenType;
  token_hash: string;
  relates_to: string;
  created_at: Date;
  updated_at: Date;
}

export interface GotrueAuditEntry {
  instance_id: string | null;
  id: string;
  payload: Json | null;
  created_at: Date | null;
  ip_address: string;
}

/** An `sso_providers` row: the provider, its SAML settings in `saml_providers`, its domains in `sso_domains`. */
export interface GotrueSsoProvider {
  id: string;
  /** Unique without regard to case. */
  resource_id: string | null;
  created_at: Date | null;
  updated_at: Date | null;
  /** Null unless set (added by 20250717082212). */
  disabled: boolean | null;
}

/** A `saml_providers` row: one per SSO provider. */
export interface GotrueSamlProvider {
  id: string;
  sso_provider_id: string;
  /** Unique. */
  entity_id: string;
  metadata_xml: string;
  metadata_url: string | null;
  attribute_mapping: Json | null;
  created_at: Date | null;
  updated_at: Date | null;
  /** Null for GoTrue's default (persistent). */
  name_id_format: string | null;
}

/** An `sso_domains` row, kept as given, unique without regard to case. */
export interface GotrueSsoDomain {
  id: string;
  sso_provider_id: string;
  domain: string;
  created_at: Date | null;
  updated_at: Date | null;
}
