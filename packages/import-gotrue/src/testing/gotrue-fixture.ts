import { createCipheriv, createHash, createHmac, hkdfSync, randomBytes, randomUUID } from "node:crypto";
import { hash as hashArgon2 } from "@node-rs/argon2";
import { hash as hashBcrypt } from "@node-rs/bcrypt";
import pg from "pg";

// A GoTrue (Supabase Auth) database as GoTrue's migrations leave it, written from the schema facts
// (shared/reference/gotrue-contract.md §9, keys-otel-captcha-mfa.md D): the tables, columns and types the importer
// reads, with GoTrue's defaults, generated columns, enums and constraints. Not a copy of the migrations: no RLS, no
// SQL functions, no SAML, OAuth-server, flow-state or passkey tables.

export const NIL_UUID = "00000000-0000-0000-0000-000000000000";
/** The newest migration of GoTrue at the time of writing (20260625000000_add_custom_claims_allowlist). */
export const GOTRUE_SCHEMA_VERSION = "20260625000000";

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
type Json = Record<string, unknown>;

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
  web_authn_credential: Json | null;
  web_authn_aaguid: string | null;
  last_webauthn_challenge_data: Json | null;
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

type Insert<Row, Required extends keyof Row> = Partial<Row> & Pick<Row, Required>;

export interface GotrueDatabase {
  /** Connection URL of the new database. */
  readonly url: string;
  readonly schema: string;
  /** Connected, search_path unchanged: qualify names with the schema. Reads `timestamp` columns as UTC. */
  readonly client: pg.Client;
  /**
   * Defaults as GoTrue's server writes them: nil instance_id, aud and role 'authenticated', timestamps now, metadata
   * {}, token columns '' (the table itself has no default for the first four: see `nullTokens`).
   */
  insertUser(user: Partial<Omit<GotrueUser, "confirmed_at">>): Promise<GotrueUser>;
  insertIdentity(
    identity: Insert<Omit<GotrueIdentity, "email">, "user_id" | "provider" | "provider_id" | "identity_data">,
  ): Promise<GotrueIdentity>;
  /** aal defaults to 'aal1'. */
  insertSession(session: Insert<GotrueSession, "user_id">): Promise<GotrueSession>;
  /** token defaults to a fresh legacy token (12 chars of [a-z2-7]), revoked to false, parent to null. */
  insertRefreshToken(
    token: Insert<Omit<GotrueRefreshToken, "id">, "session_id" | "user_id">,
  ): Promise<GotrueRefreshToken>;
  insertAmrClaim(claim: Insert<GotrueAmrClaim, "session_id" | "authentication_method">): Promise<GotrueAmrClaim>;
  /** A verified TOTP factor unless told otherwise. */
  insertFactor(factor: Insert<GotrueFactor, "user_id">): Promise<GotrueFactor>;
  insertChallenge(challenge: Insert<GotrueChallenge, "factor_id">): Promise<GotrueChallenge>;
  insertOneTimeToken(
    token: Insert<GotrueOneTimeToken, "user_id" | "token_type" | "token_hash" | "relates_to">,
  ): Promise<GotrueOneTimeToken>;
  insertAuditEntry(entry: Insert<GotrueAuditEntry, "payload">): Promise<GotrueAuditEntry>;
  /** Ends the connection and drops the database. */
  drop(): Promise<void>;
}

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

// pg's default reads `timestamp` as local time; GoTrue writes UTC there (sessions.refreshed_at, one_time_tokens).
const TIMESTAMP_OID = 1114;
const utcTimestampTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMP_OID && format !== "binary"
      ? (value: string) => new Date(`${value.replace(" ", "T")}Z`)
      : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
};

/** What to write into a `timestamp without time zone` column: the UTC wall clock, as GoTrue does. */
const utcWallClock = (date: Date) => date.toISOString().replace("T", " ").replace("Z", "");

const JSON_COLUMNS = new Set([
  "raw_app_meta_data",
  "raw_user_meta_data",
  "identity_data",
  "payload",
  "web_authn_credential",
  "last_webauthn_challenge_data",
  "web_authn_session_data",
]);

function schemaSql(s: string): string {
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

create table ${s}.audit_log_entries (
  instance_id uuid,
  id uuid not null primary key,
  payload json,
  created_at timestamptz,
  ip_address varchar(64) not null default ''
);
`;
}

/** A fresh database on the server of `adminUrl` (TEST_DATABASE_URL), holding GoTrue's tables in `schema`. */
export async function createGotrueDatabase(options: { adminUrl: string; schema?: string }): Promise<GotrueDatabase> {
  const schema = options.schema ?? "auth";
  const name = `gotrue_${randomBytes(5).toString("hex")}`;
  const runAsAdmin = async (statement: string) => {
    const admin = new pg.Client({ connectionString: options.adminUrl });
    await admin.connect();
    try {
      await admin.query(statement);
    } finally {
      await admin.end();
    }
  };
  // compat: Supabase's databases run in UTC, so now() in a `timestamp` default is UTC too.
  await runAsAdmin(`create database ${quote(name)}`);
  await runAsAdmin(`alter database ${quote(name)} set timezone to 'UTC'`);
  const url = new URL(options.adminUrl);
  url.pathname = `/${name}`;

  const client = new pg.Client({ connectionString: url.toString(), types: utcTimestampTypes });
  const drop = async () => {
    await client.end().catch(() => undefined);
    await runAsAdmin(`drop database if exists ${quote(name)} with (force)`);
  };
  try {
    await client.connect();
    await client.query(`begin; ${schemaSql(quote(schema))} commit;`);
    await client.query(`insert into ${quote(schema)}.schema_migrations (version) values ($1)`, [GOTRUE_SCHEMA_VERSION]);
  } catch (error) {
    await drop();
    throw error;
  }

  const insert = async <Row>(table: string, values: Record<string, unknown>): Promise<Row> => {
    const columns = Object.keys(values).filter((column) => values[column] !== undefined);
    const params = columns.map((column) => {
      const value = values[column];
      return JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value;
    });
    const { rows } = await client.query(
      `insert into ${quote(schema)}.${quote(table)} (${columns.map(quote).join(", ")})
       values (${columns.map((_, i) => `$${i + 1}`).join(", ")}) returning *`,
      params,
    );
    return rows[0] as Row;
  };
  const timestamp = (value: Date | null | undefined) => (value instanceof Date ? utcWallClock(value) : value);

  return {
    url: url.toString(),
    schema,
    client,
    insertUser: (user) => {
      const now = new Date();
      return insert<GotrueUser>("users", {
        instance_id: NIL_UUID,
        id: randomUUID(),
        aud: "authenticated",
        role: "authenticated",
        encrypted_password: "",
        confirmation_token: "",
        recovery_token: "",
        email_change_token_new: "",
        email_change: "",
        email_change_token_current: "",
        email_change_confirm_status: 0,
        phone_change: "",
        phone_change_token: "",
        reauthentication_token: "",
        raw_app_meta_data: {},
        raw_user_meta_data: {},
        is_super_admin: null,
        created_at: now,
        updated_at: now,
        ...user,
      });
    },
    insertIdentity: (identity) => {
      const now = new Date();
      return insert<GotrueIdentity>("identities", { created_at: now, updated_at: now, ...identity });
    },
    insertSession: async (session) => {
      const now = new Date();
      const row = await insert<GotrueSession & { refresh_token_counter: string | null }>("sessions", {
        id: randomUUID(),
        created_at: now,
        updated_at: now,
        aal: "aal1",
        ...session,
        refreshed_at: timestamp(session.refreshed_at),
      });
      return {
        ...row,
        refresh_token_counter: row.refresh_token_counter === null ? null : Number(row.refresh_token_counter),
      };
    },
    insertRefreshToken: async (token) => {
      const now = new Date();
      const row = await insert<GotrueRefreshToken & { id: string }>("refresh_tokens", {
        instance_id: NIL_UUID,
        token: gotrueLegacyRefreshToken(),
        revoked: false,
        parent: null,
        created_at: now,
        updated_at: now,
        ...token,
      });
      return { ...row, id: Number(row.id) };
    },
    insertAmrClaim: (claim) => {
      const now = new Date();
      return insert<GotrueAmrClaim>("mfa_amr_claims", { id: randomUUID(), created_at: now, updated_at: now, ...claim });
    },
    insertFactor: (factor) => {
      const now = new Date();
      return insert<GotrueFactor>("mfa_factors", {
        id: randomUUID(),
        factor_type: "totp",
        status: "verified",
        friendly_name: "",
        created_at: now,
        updated_at: now,
        ...factor,
      });
    },
    insertChallenge: (challenge) =>
      insert<GotrueChallenge>("mfa_challenges", {
        id: randomUUID(),
        created_at: new Date(),
        ip_address: "127.0.0.1",
        ...challenge,
      }),
    insertOneTimeToken: (token) => {
      const now = new Date();
      return insert<GotrueOneTimeToken>("one_time_tokens", {
        id: randomUUID(),
        ...token,
        created_at: timestamp(token.created_at ?? now),
        updated_at: timestamp(token.updated_at ?? now),
      });
    },
    insertAuditEntry: (entry) =>
      insert<GotrueAuditEntry>("audit_log_entries", {
        instance_id: NIL_UUID,
        id: randomUUID(),
        created_at: new Date(),
        ip_address: "",
        ...entry,
      }),
    drop,
  };
}

const BASE32_LOWER = "abcdefghijklmnopqrstuvwxyz234567";

/** GoTrue's legacy (v1) refresh token: 12 characters of the lower-case base32 alphabet. */
export function gotrueLegacyRefreshToken(): string {
  return [...randomBytes(12)].map((byte) => BASE32_LOWER[byte % 32]).join("");
}

/** A fresh session HMAC key as GoTrue stores it in `sessions.refresh_token_hmac_key`: 32 bytes, base64url, no padding. */
export function gotrueRefreshTokenHmacKey(): string {
  return randomBytes(32).toString("base64url");
}

function uvarint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = BigInt(value);
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return Buffer.from(bytes);
}

/**
 * GoTrue's v2 refresh token for a session's hmac key (base64url, 32 bytes) and counter, per §7.3: base64url (no
 * padding) of 0x00 ‖ session uuid (16 bytes) ‖ uvarint(counter) ‖ HMAC-SHA256(key, everything before)[:16] ‖
 * SHA-256(everything before)[:4].
 */
export function gotrueV2RefreshToken(sessionId: string, hmacKeyBase64Url: string, counter: number): string {
  if (!Number.isSafeInteger(counter) || counter < 0)
    throw new Error(`counter ${counter} is not a non-negative integer`);
  const prefix = Buffer.concat([Buffer.from([0]), Buffer.from(sessionId.replaceAll("-", ""), "hex"), uvarint(counter)]);
  const signature = createHmac("sha256", Buffer.from(hmacKeyBase64Url, "base64url")).update(prefix).digest();
  const signed = Buffer.concat([prefix, signature.subarray(0, 16)]);
  const checksum = createHash("sha256").update(signed).digest().subarray(0, 4);
  return Buffer.concat([signed, checksum]).toString("base64url");
}

/**
 * GoTrue's sealed column value (keys-otel-captcha-mfa.md D.6), as in `mfa_factors.secret`, `mfa_challenges.otp_code`
 * and `sessions.refresh_token_hmac_key`: {"key_id","alg":"aes-gcm-hkdf","data","nonce"} (standard base64), AES-256-GCM
 * under HKDF-SHA256(ikm = the base64url-decoded 32-byte key, salt empty, info = the row's id).
 */
export function gotrueSealedSecret(rowId: string, secret: string, key: { id: string; keyBase64Url: string }): string {
  const ikm = Buffer.from(key.keyBase64Url, "base64url");
  if (ikm.length !== 32) throw new Error(`key ${JSON.stringify(key.id)} is not 32 bytes of base64url`);
  const rowKey = Buffer.from(hkdfSync("sha256", ikm, Buffer.alloc(0), rowId, 32));
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", rowKey, nonce);
  const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return JSON.stringify({
    key_id: key.id,
    alg: "aes-gcm-hkdf",
    data: data.toString("base64"),
    nonce: nonce.toString("base64"),
  });
}

/** What GoTrue stores for an emailed or texted OTP, in the user's token column and in `one_time_tokens`. */
export function gotrueTokenHash(emailOrPhone: string, otp: string): string {
  return createHash("sha224")
    .update(emailOrPhone + otp)
    .digest("hex");
}

/** A TOTP secret shaped as GoTrue's (pquerna/otp, 160 bits): 32 characters of upper-case base32. */
export function gotrueTotpSecret(): string {
  return [...randomBytes(32)].map((byte) => BASE32_LOWER[byte % 32]?.toUpperCase()).join("");
}

// compat: Go's x/crypto/bcrypt writes $2a$; the computation is the same as $2b$ for passwords under 72 bytes.
async function gotrueBcrypt(password: string): Promise<string> {
  return (await hashBcrypt(password, 4)).replace(/^\$2b\$/, "$2a$");
}

// @node-rs/argon2's Algorithm is a const enum, which isolated modules cannot read; 2 is Argon2id.
const gotrueArgon2 = (password: string) => hashArgon2(password, { algorithm: 2, memoryCost: 4096, timeCost: 2 });

// GoTrue's soft delete replaces addresses with base64url(SHA-256(user id ‖ value)) (models/user.go obfuscateValue),
// clears passwords and tokens, empties the metadata and the identities' data and obfuscates their provider ids.
const obfuscate = (userId: string, value: string) =>
  createHash("sha256")
    .update(userId + value)
    .digest("base64url");

const randomOtp = () => String(randomBytes(4).readUInt32BE() % 1_000_000).padStart(6, "0");

export interface FixtureAccount {
  readonly id: string;
  readonly email: string;
  readonly password: string;
}

/** Ids and plaintexts of the awkward fixture's rows: what a client of the GoTrue server would hold. */
export interface AwkwardFixture {
  /** Confirmed email user, bcrypt password ($2a$, as Go writes it), one email identity. */
  readonly withPassword: FixtureAccount;
  /** The same with an argon2id hash ($argon2id$v=19$m=4096,t=2,p=1$…). */
  readonly withArgon2Password: FixtureAccount;
  /** No email; phone stored as GoTrue does, digits without '+'; confirmed; a phone identity. */
  readonly phoneOnly: { readonly id: string; readonly phone: string; readonly password: string };
  /** deleted_at set; as GoTrue leaves it: `storedEmail` is base64url(SHA-256(id ‖ email)), no password, {} metadata, the identity's data {} and provider_id obfuscated. */
  readonly softDeleted: { readonly id: string; readonly email: string; readonly storedEmail: string };
  /** banned_until about 100 years ahead (ban_duration 876000h). */
  readonly banned: FixtureAccount & { readonly bannedUntil: Date };
  /** is_anonymous, no email, phone or identity, {} app metadata; signed in (amr 'anonymous'). */
  readonly anonymous: { readonly id: string; readonly sessionId: string; readonly refreshToken: string };
  /** invited_at set, no password, a pending confirmation link (users.confirmation_token and a one_time_tokens row). */
  readonly invited: { readonly id: string; readonly email: string; readonly otp: string; readonly tokenHash: string };
  /** Signed up, email not confirmed: a pending confirmation link as for `invited`. */
  readonly unconfirmed: FixtureAccount & { readonly otp: string; readonly tokenHash: string };
  /** Confirmed; email_change pending with both tokens (secure email change), one_time_tokens rows for each. */
  readonly pendingEmailChange: FixtureAccount & {
    readonly newEmail: string;
    readonly otpNew: string;
    readonly otpCurrent: string;
  };
  /** Phone user with phone_change pending (token column and one_time_tokens row). */
  readonly pendingPhoneChange: {
    readonly id: string;
    readonly phone: string;
    readonly password: string;
    readonly newPhone: string;
    readonly otp: string;
  };
  /** Confirmed, with a pending recovery link (recovery_token, recovery_sent_at and a one_time_tokens row). */
  readonly pendingRecovery: FixtureAccount & { readonly otp: string; readonly tokenHash: string };
  /**
   * Inserted in SQL as some projects do: confirmation_token, recovery_token, email_change_token_new and email_change
   * (the columns without a default) NULL, and no identity.
   */
  readonly nullTokens: FixtureAccount;
  /** No password; a github identity whose identity_data email is mixed-case (users.email is lower-case). */
  readonly oauthOnly: {
    readonly id: string;
    readonly email: string;
    readonly provider: "github";
    readonly providerId: string;
  };
  /** A session mid-rotation on legacy tokens: root (revoked) -> parent (revoked) -> refreshToken (live); amr 'password'. */
  readonly withSession: FixtureAccount & {
    readonly sessionId: string;
    readonly refreshToken: string;
    readonly parentToken: string;
    readonly rootToken: string;
  };
  /**
   * A session on v2 tokens at counter 3, upgraded from a legacy token (kept, revoked, as GoTrue leaves it). The hmac
   * key is sealed like factor secrets (info = session id) when the fixture has an encryption key, as GoTrue does.
   */
  readonly withV2Session: FixtureAccount & {
    readonly sessionId: string;
    readonly hmacKey: string;
    readonly hmacKeySealed: boolean;
    readonly counter: number;
    readonly refreshToken: string;
    readonly upgradedFromToken: string;
  };
  /** A verified TOTP factor (secret sealed when the fixture has an encryption key) and an aal2 session. */
  readonly withFactor: {
    readonly userId: string;
    readonly factorId: string;
    readonly secret: string;
    readonly secretSealed: boolean;
    readonly email: string;
    readonly password: string;
    readonly sessionId: string;
    readonly refreshToken: string;
  };
  /** A verified phone factor and a pending challenge whose otp_code is sealed when the fixture has a key. */
  readonly withPhoneFactor: FixtureAccount & {
    readonly factorId: string;
    readonly phone: string;
    readonly challengeId: string;
    readonly otp: string;
  };
  /** is_sso_user, with the same email as `withPassword` (SSO users may share one): the importer skips it. */
  readonly sso: { readonly id: string; readonly email: string };
  /** A user of another (legacy) instance: GoTrue ignores it, so does the importer. */
  readonly otherInstance: FixtureAccount & { readonly instanceId: string };
  readonly auditEntryIds: readonly string[];
}

const DAY_MS = 86_400_000;
const EMAIL_APP_METADATA = { provider: "email", providers: ["email"] };
const PHONE_APP_METADATA = { provider: "phone", providers: ["phone"] };

/** The awkward fixture the importer's tests and the e2e test use: every kind of row, and what a client would hold. */
export async function seedAwkwardFixture(
  db: GotrueDatabase,
  options: { encryptionKey?: { id: string; keyBase64Url: string } } = {},
): Promise<AwkwardFixture> {
  const key = options.encryptionKey;
  const seal = (rowId: string, value: string) => (key ? gotrueSealedSecret(rowId, value, key) : value);
  const now = Date.now();
  const ago = (ms: number) => new Date(now - ms);
  // Users created a minute apart over the last month, so that any ordering by created_at is deterministic.
  let created = 0;
  const nextCreatedAt = () => new Date(now - 30 * DAY_MS + created++ * 60_000);

  const emailAccount = async (
    name: string,
    fields: Partial<Omit<GotrueUser, "confirmed_at">> = {},
    { hasher = gotrueBcrypt, confirmed = true } = {},
  ): Promise<FixtureAccount> => {
    const id = randomUUID();
    const email = `${name}@example.com`;
    const password = `${name} correct horse`;
    const at = nextCreatedAt();
    const identityData = { sub: id, email, email_verified: confirmed, phone_verified: false };
    await db.insertUser({
      id,
      email,
      encrypted_password: await hasher(password),
      email_confirmed_at: confirmed ? at : null,
      raw_app_meta_data: EMAIL_APP_METADATA,
      raw_user_meta_data: identityData,
      created_at: at,
      updated_at: at,
      ...fields,
    });
    await db.insertIdentity({
      user_id: id,
      provider: "email",
      provider_id: id,
      identity_data: identityData,
      created_at: at,
      updated_at: at,
      last_sign_in_at: confirmed ? at : null,
    });
    return { id, email, password };
  };

  const phoneAccount = async (phone: string, fields: Partial<Omit<GotrueUser, "confirmed_at">> = {}) => {
    const id = randomUUID();
    const password = `${phone} correct horse`;
    const at = nextCreatedAt();
    const identityData = { sub: id, phone, email_verified: false, phone_verified: true };
    await db.insertUser({
      id,
      phone,
      encrypted_password: await gotrueBcrypt(password),
      phone_confirmed_at: at,
      raw_app_meta_data: PHONE_APP_METADATA,
      raw_user_meta_data: identityData,
      created_at: at,
      updated_at: at,
      ...fields,
    });
    await db.insertIdentity({
      user_id: id,
      provider: "phone",
      provider_id: id,
      identity_data: identityData,
      created_at: at,
      updated_at: at,
      last_sign_in_at: at,
    });
    return { id, phone, password };
  };

  const pendingToken = async (userId: string, tokenType: OneTimeTokenType, relatesTo: string, otp: string) => {
    const tokenHash = gotrueTokenHash(relatesTo, otp);
    await db.insertOneTimeToken({
      user_id: userId,
      token_type: tokenType,
      token_hash: tokenHash,
      relates_to: relatesTo,
    });
    return tokenHash;
  };

  const signIn = async (
    userId: string,
    methods: readonly string[],
    fields: Partial<GotrueSession> = {},
  ): Promise<GotrueSession> => {
    const session = await db.insertSession({
      user_id: userId,
      created_at: ago(2 * 3_600_000),
      updated_at: ago(600_000),
      refreshed_at: ago(600_000),
      user_agent: "supabase-js/2.x node",
      ip: "203.0.113.7",
      ...fields,
    });
    for (const method of methods) {
      await db.insertAmrClaim({ session_id: session.id, authentication_method: method });
    }
    await db.client.query(`update ${quote(db.schema)}.users set last_sign_in_at = $2 where id = $1`, [
      userId,
      session.created_at,
    ]);
    return session;
  };

  const withPassword = await emailAccount("with-password");
  const withArgon2Password = await emailAccount("with-argon2-password", {}, { hasher: gotrueArgon2 });
  const phoneOnly = await phoneAccount("15550100001");

  const deletedEmail = "soft-deleted@example.com";
  const softDeletedAccount = await emailAccount("soft-deleted");
  const storedEmail = obfuscate(softDeletedAccount.id, deletedEmail);
  await db.client.query(
    `update ${quote(db.schema)}.users set email = $2, encrypted_password = null, raw_app_meta_data = '{}',
       raw_user_meta_data = '{}', deleted_at = now() where id = $1`,
    [softDeletedAccount.id, storedEmail],
  );
  await db.client.query(
    `update ${quote(db.schema)}.identities set identity_data = '{}', provider_id = $2 where user_id = $1`,
    [softDeletedAccount.id, obfuscate(softDeletedAccount.id, `email:${softDeletedAccount.id}`)],
  );

  const bannedUntil = new Date(now + 876_000 * 3_600_000);
  const banned = { ...(await emailAccount("banned", { banned_until: bannedUntil })), bannedUntil };

  const anonymousId = randomUUID();
  await db.insertUser({ id: anonymousId, is_anonymous: true, created_at: nextCreatedAt() });
  const anonymousSession = await signIn(anonymousId, ["anonymous"]);
  const anonymousToken = await db.insertRefreshToken({ session_id: anonymousSession.id, user_id: anonymousId });

  const invitedOtp = randomOtp();
  const invitedAccount = await emailAccount(
    "invited",
    { encrypted_password: "", invited_at: ago(DAY_MS), confirmation_sent_at: ago(DAY_MS) },
    { confirmed: false },
  );
  const invitedHash = await pendingToken(invitedAccount.id, "confirmation_token", invitedAccount.email, invitedOtp);
  await setUser(db, invitedAccount.id, { confirmation_token: invitedHash });

  const unconfirmedOtp = randomOtp();
  const unconfirmedAccount = await emailAccount(
    "unconfirmed",
    { confirmation_sent_at: ago(300_000) },
    { confirmed: false },
  );
  const unconfirmedHash = await pendingToken(
    unconfirmedAccount.id,
    "confirmation_token",
    unconfirmedAccount.email,
    unconfirmedOtp,
  );
  await setUser(db, unconfirmedAccount.id, { confirmation_token: unconfirmedHash });

  const newEmail = "changed-email@example.com";
  const otpNew = randomOtp();
  const otpCurrent = randomOtp();
  const emailChanger = await emailAccount("pending-email-change", {
    email_change: newEmail,
    email_change_sent_at: ago(120_000),
  });
  await setUser(db, emailChanger.id, {
    email_change_token_new: await pendingToken(emailChanger.id, "email_change_token_new", newEmail, otpNew),
    email_change_token_current: await pendingToken(
      emailChanger.id,
      "email_change_token_current",
      emailChanger.email,
      otpCurrent,
    ),
  });

  const newPhone = "15550100003";
  const phoneChangeOtp = randomOtp();
  const phoneChanger = await phoneAccount("15550100002", { phone_change: newPhone, phone_change_sent_at: ago(60_000) });
  await setUser(db, phoneChanger.id, {
    phone_change_token: await pendingToken(phoneChanger.id, "phone_change_token", newPhone, phoneChangeOtp),
  });

  const recoveryOtp = randomOtp();
  const recoveryAccount = await emailAccount("pending-recovery", { recovery_sent_at: ago(240_000) });
  const recoveryHash = await pendingToken(recoveryAccount.id, "recovery_token", recoveryAccount.email, recoveryOtp);
  await setUser(db, recoveryAccount.id, { recovery_token: recoveryHash });

  // The columns of GoTrue's first migration have no default, so a row inserted in SQL leaves them NULL.
  const nullTokensPassword = "null-tokens correct horse";
  const nullTokensAt = nextCreatedAt();
  const nullTokensUser = await db.insertUser({
    email: "null-tokens@example.com",
    encrypted_password: await gotrueBcrypt(nullTokensPassword),
    email_confirmed_at: nullTokensAt,
    confirmation_token: null,
    recovery_token: null,
    email_change_token_new: null,
    email_change: null,
    raw_app_meta_data: EMAIL_APP_METADATA,
    created_at: nullTokensAt,
    updated_at: nullTokensAt,
  });

  const githubId = "123456";
  const githubData = {
    iss: "https://api.github.com",
    sub: githubId,
    provider_id: githubId,
    name: "The Octocat",
    full_name: "The Octocat",
    user_name: "octocat",
    preferred_username: "octocat",
    avatar_url: `https://avatars.githubusercontent.com/u/${githubId}?v=4`,
    email: "Octocat@Example.com",
    email_verified: true,
    phone_verified: false,
  };
  const oauthCreatedAt = nextCreatedAt();
  const oauthUser = await db.insertUser({
    email: githubData.email.toLowerCase(),
    email_confirmed_at: oauthCreatedAt,
    raw_app_meta_data: { provider: "github", providers: ["github"] },
    raw_user_meta_data: githubData,
    created_at: oauthCreatedAt,
    updated_at: oauthCreatedAt,
  });
  await db.insertIdentity({
    user_id: oauthUser.id,
    provider: "github",
    provider_id: githubId,
    identity_data: githubData,
    last_sign_in_at: oauthCreatedAt,
    created_at: oauthCreatedAt,
    updated_at: oauthCreatedAt,
  });

  const sessionAccount = await emailAccount("with-session");
  const session = await signIn(sessionAccount.id, ["password"]);
  const chain = { session_id: session.id, user_id: sessionAccount.id };
  const root = await db.insertRefreshToken({ ...chain, revoked: true, created_at: ago(2 * 3_600_000) });
  const parent = await db.insertRefreshToken({
    ...chain,
    revoked: true,
    parent: root.token,
    created_at: ago(3_600_000),
  });
  const live = await db.insertRefreshToken({ ...chain, parent: parent.token, created_at: ago(600_000) });

  const v2Account = await emailAccount("with-v2-session");
  const hmacKey = gotrueRefreshTokenHmacKey();
  const v2SessionId = randomUUID();
  const counter = 3;
  const v2Session = await signIn(v2Account.id, ["password"], {
    id: v2SessionId,
    refresh_token_hmac_key: seal(v2SessionId, hmacKey),
    refresh_token_counter: counter,
  });
  const upgradedFrom = await db.insertRefreshToken({
    session_id: v2Session.id,
    user_id: v2Account.id,
    revoked: true,
    created_at: ago(2 * 3_600_000),
  });

  const factorAccount = await emailAccount("with-factor");
  const factorId = randomUUID();
  const totpSecret = gotrueTotpSecret();
  await db.insertFactor({
    id: factorId,
    user_id: factorAccount.id,
    friendly_name: "Authenticator app",
    secret: seal(factorId, totpSecret),
    last_challenged_at: ago(2 * 3_600_000),
  });
  await db.insertChallenge({ factor_id: factorId, created_at: ago(2 * 3_600_000), verified_at: ago(2 * 3_600_000) });
  const aal2Session = await signIn(factorAccount.id, ["password", "totp"], { aal: "aal2", factor_id: factorId });
  const aal2Token = await db.insertRefreshToken({ session_id: aal2Session.id, user_id: factorAccount.id });

  const phoneFactorAccount = await emailAccount("with-phone-factor");
  const factorPhone = "15550100009";
  const phoneFactor = await db.insertFactor({
    user_id: phoneFactorAccount.id,
    friendly_name: "My phone",
    factor_type: "phone",
    phone: factorPhone,
    last_challenged_at: ago(30_000),
  });
  const challengeId = randomUUID();
  const challengeOtp = randomOtp();
  await db.insertChallenge({
    id: challengeId,
    factor_id: phoneFactor.id,
    created_at: ago(30_000),
    otp_code: seal(challengeId, challengeOtp),
  });

  const ssoProviderId = randomUUID();
  const ssoCreatedAt = nextCreatedAt();
  const ssoUser = await db.insertUser({
    email: withPassword.email,
    is_sso_user: true,
    email_confirmed_at: ssoCreatedAt,
    raw_app_meta_data: { provider: `sso:${ssoProviderId}`, providers: [`sso:${ssoProviderId}`] },
    created_at: ssoCreatedAt,
    updated_at: ssoCreatedAt,
  });
  await db.insertIdentity({
    user_id: ssoUser.id,
    provider: `sso:${ssoProviderId}`,
    provider_id: "saml-subject-1",
    identity_data: { sub: "saml-subject-1", email: withPassword.email, email_verified: true },
    created_at: ssoCreatedAt,
    updated_at: ssoCreatedAt,
  });

  const instanceId = "11111111-1111-4111-8111-111111111111";
  const otherInstance = { ...(await emailAccount("other-instance", { instance_id: instanceId })), instanceId };

  const audit = (action: string, logType: string, actor: FixtureAccount, extra: Json = {}, ip = "") =>
    db.insertAuditEntry({
      payload: {
        action,
        actor_id: actor.id,
        actor_username: actor.email,
        actor_via_sso: false,
        log_type: logType,
        ...extra,
      },
      ip_address: ip,
      created_at: ago(DAY_MS),
    });
  const auditEntries = [
    await audit("user_signedup", "team", withPassword, { traits: { provider: "email" } }),
    await audit("login", "account", withPassword, { traits: { provider: "email" } }, "203.0.113.7"),
    await audit("token_refreshed", "token", sessionAccount),
    await audit("token_revoked", "token", sessionAccount),
  ];

  return {
    withPassword,
    withArgon2Password,
    phoneOnly,
    softDeleted: { id: softDeletedAccount.id, email: deletedEmail, storedEmail },
    banned,
    anonymous: { id: anonymousId, sessionId: anonymousSession.id, refreshToken: required(anonymousToken.token) },
    invited: { id: invitedAccount.id, email: invitedAccount.email, otp: invitedOtp, tokenHash: invitedHash },
    unconfirmed: { ...unconfirmedAccount, otp: unconfirmedOtp, tokenHash: unconfirmedHash },
    pendingEmailChange: { ...emailChanger, newEmail, otpNew, otpCurrent },
    pendingPhoneChange: { ...phoneChanger, newPhone, otp: phoneChangeOtp },
    pendingRecovery: { ...recoveryAccount, otp: recoveryOtp, tokenHash: recoveryHash },
    nullTokens: { id: nullTokensUser.id, email: required(nullTokensUser.email), password: nullTokensPassword },
    oauthOnly: { id: oauthUser.id, email: required(oauthUser.email), provider: "github", providerId: githubId },
    withSession: {
      ...sessionAccount,
      sessionId: session.id,
      refreshToken: required(live.token),
      parentToken: required(parent.token),
      rootToken: required(root.token),
    },
    withV2Session: {
      ...v2Account,
      sessionId: v2SessionId,
      hmacKey,
      hmacKeySealed: key !== undefined,
      counter,
      refreshToken: gotrueV2RefreshToken(v2SessionId, hmacKey, counter),
      upgradedFromToken: required(upgradedFrom.token),
    },
    withFactor: {
      userId: factorAccount.id,
      factorId,
      secret: totpSecret,
      secretSealed: key !== undefined,
      email: factorAccount.email,
      password: factorAccount.password,
      sessionId: aal2Session.id,
      refreshToken: required(aal2Token.token),
    },
    withPhoneFactor: {
      ...phoneFactorAccount,
      factorId: phoneFactor.id,
      phone: factorPhone,
      challengeId,
      otp: challengeOtp,
    },
    sso: { id: ssoUser.id, email: withPassword.email },
    otherInstance,
    auditEntryIds: auditEntries.map((entry) => entry.id),
  };
}

async function setUser(db: GotrueDatabase, id: string, fields: Record<string, string>): Promise<void> {
  const columns = Object.keys(fields);
  await db.client.query(
    `update ${quote(db.schema)}.users set ${columns.map((column, i) => `${quote(column)} = $${i + 2}`).join(", ")}
     where id = $1`,
    [id, ...columns.map((column) => fields[column])],
  );
}

function required<T>(value: T | null): T {
  if (value === null) throw new Error("the fixture expected a value here");
  return value;
}

/** The password of every user seedManyUsers writes. */
export const MANY_USERS_PASSWORD = "many users correct horse";

/**
 * `count` confirmed email users with an email identity each, in one statement (generate_series), for the
 * 100,000-user bench: every tenth holds an argon2id hash, the others a bcrypt one, of MANY_USERS_PASSWORD.
 * Emails are `bench-<random>-<n>@example.com`, created a second apart.
 */
export async function seedManyUsers(db: GotrueDatabase, count: number): Promise<void> {
  const [bcrypt, argon2] = await Promise.all([gotrueBcrypt(MANY_USERS_PASSWORD), gotrueArgon2(MANY_USERS_PASSWORD)]);
  const prefix = `bench-${randomBytes(3).toString("hex")}-`;
  const s = quote(db.schema);
  await db.client.query(
    `with created as (
       insert into ${s}.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
         confirmation_token, recovery_token, email_change_token_new, email_change, email_change_token_current,
         phone_change, phone_change_token, reauthentication_token, raw_app_meta_data, raw_user_meta_data,
         created_at, updated_at, last_sign_in_at)
       select $1::uuid, gen_random_uuid(), 'authenticated', 'authenticated', $2 || n || '@example.com',
         case when n % 10 = 0 then $4 else $3 end, at, '', '', '', '', '', '', '', '',
         '{"provider":"email","providers":["email"]}', '{}', at, at, at
       from generate_series(1, $5::int) as n, lateral (select now() - n * interval '1 second' as at) as t
       returning id, email, created_at
     )
     insert into ${s}.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
     select id::text, id, jsonb_build_object('sub', id::text, 'email', email, 'email_verified', true,
       'phone_verified', false), 'email', created_at, created_at, created_at
     from created`,
    [NIL_UUID, prefix, bcrypt, argon2, count],
  );
}
