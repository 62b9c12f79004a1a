import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { gotrueLegacyRefreshToken } from "./gotrue-formats.ts";
import {
  type GotrueAmrClaim,
  type GotrueAuditEntry,
  type GotrueChallenge,
  type GotrueFactor,
  type GotrueIdentity,
  type GotrueOneTimeToken,
  type GotruePasskey,
  type GotrueRefreshToken,
  type GotrueSamlProvider,
  type GotrueSession,
  type GotrueSsoDomain,
  type GotrueSsoProvider,
  type GotrueUser,
  NIL_UUID,
} from "./gotrue-rows.ts";
import { GOTRUE_SCHEMA_VERSION, gotrueSchemaSql } from "./gotrue-schema.ts";

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
  /** A passkey as GoTrue's registration writes it: attestation `none`, transports ["internal"], unnamed. */
  insertPasskey(passkey: Insert<GotruePasskey, "user_id" | "credential_id" | "public_key">): Promise<GotruePasskey>;
  insertOneTimeToken(
    token: Insert<GotrueOneTimeToken, "user_id" | "token_type" | "token_hash" | "relates_to">,
  ): Promise<GotrueOneTimeToken>;
  insertAuditEntry(entry: Insert<GotrueAuditEntry, "payload">): Promise<GotrueAuditEntry>;
  /**
   * An SSO provider as GoTrue's admin API writes it: the `sso_providers` row, its `saml_providers` row and a row of
   * `sso_domains` per domain, timestamps now unless given.
   */
  insertSsoProvider(provider: {
    provider?: Partial<GotrueSsoProvider>;
    saml: Insert<Omit<GotrueSamlProvider, "sso_provider_id">, "entity_id" | "metadata_xml">;
    domains?: readonly string[];
  }): Promise<{ provider: GotrueSsoProvider; saml: GotrueSamlProvider; domains: GotrueSsoDomain[] }>;
  /** Ends the connection and drops the database. */
  drop(): Promise<void>;
}

export const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

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
  "transports",
  "attribute_mapping",
]);

/** A fresh database on the server of `adminUrl` (TEST_DATABASE_URL), holding GoTrue's tables in `schema`. */
export async function createGotrueDatabase(options: { adminUrl: string; schema?: string }): Promise<GotrueDatabase> {
  const schema = options.schema ?? "auth";
  const { url, runAsAdmin, name } = await createEmptyDatabase(options.adminUrl);
  const client = new pg.Client({ connectionString: url, types: utcTimestampTypes });
  const drop = async () => {
    await client.end().catch(() => undefined);
    await runAsAdmin(`drop database if exists ${quote(name)} with (force)`);
  };
  try {
    await client.connect();
    await client.query(`begin; ${gotrueSchemaSql(quote(schema))} commit;`);
    await client.query(`insert into ${quote(schema)}.schema_migrations (version) values ($1)`, [GOTRUE_SCHEMA_VERSION]);
  } catch (error) {
    await drop();
    throw error;
  }
  return { url, schema, client, ...rowInserters(inserter(client, schema)), drop };
}

/** A new database of a random name (UTC, as Supabase's are), and how to run a statement on the admin connection. */
async function createEmptyDatabase(
  adminUrl: string,
): Promise<{ name: string; url: string; runAsAdmin: (statement: string) => Promise<void> }> {
  const name = `gotrue_${randomBytes(5).toString("hex")}`;
  const runAsAdmin = async (statement: string) => {
    const admin = new pg.Client({ connectionString: adminUrl });
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
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), runAsAdmin };
}

/** Inserts one row of `table` (undefined values left out, so that the column's default applies); returns it. */
type InsertRow = <Row>(table: string, values: Record<string, unknown>) => Promise<Row>;

function inserter(client: pg.Client, schema: string): InsertRow {
  return async <Row>(table: string, values: Record<string, unknown>): Promise<Row> => {
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
}

const timestamp = (value: Date | null | undefined) => (value instanceof Date ? utcWallClock(value) : value);

type RowInserters = Omit<GotrueDatabase, "url" | "schema" | "client" | "drop">;

/** GotrueDatabase's insert methods: each row's defaults as GoTrue's server writes them, then the caller's values. */
function rowInserters(insert: InsertRow): RowInserters {
  return {
    insertUser: (user) => insert<GotrueUser>("users", { ...userDefaults(new Date()), ...user }),
    insertIdentity: (identity) => {
      const now = new Date();
      return insert<GotrueIdentity>("identities", { created_at: now, updated_at: now, ...identity });
    },
    insertSession: (session) => insertSession(insert, session),
    insertRefreshToken: (token) => insertRefreshToken(insert, token),
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
    insertPasskey: (passkey) => insertPasskey(insert, passkey),
    insertOneTimeToken: (token) => {
      const now = new Date();
      return insert<GotrueOneTimeToken>("one_time_tokens", {
        id: randomUUID(),
        ...token,
        created_at: timestamp(token.created_at ?? now),
        updated_at: timestamp(token.updated_at ?? now),
      });
    },
    insertSsoProvider: (provider) => insertSsoProvider(insert, provider),
    insertAuditEntry: (entry) =>
      insert<GotrueAuditEntry>("audit_log_entries", {
        instance_id: NIL_UUID,
        id: randomUUID(),
        created_at: new Date(),
        ip_address: "",
        ...entry,
      }),
  };
}

/** A user row's values as GoTrue's server writes them (see GotrueDatabase.insertUser). */
function userDefaults(now: Date): Record<string, unknown> {
  return {
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
  };
}

// refresh_token_counter is a bigint, which pg hands over as a string.
async function insertSession(insert: InsertRow, session: Insert<GotrueSession, "user_id">): Promise<GotrueSession> {
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
}

// sign_count is a bigint, which pg hands over as a string.
async function insertPasskey(
  insert: InsertRow,
  passkey: Insert<GotruePasskey, "user_id" | "credential_id" | "public_key">,
): Promise<GotruePasskey> {
  const now = new Date();
  const row = await insert<GotruePasskey & { sign_count: string }>("webauthn_credentials", {
    id: randomUUID(),
    attestation_type: "none",
    transports: ["internal"],
    created_at: now,
    updated_at: now,
    ...passkey,
  });
  return { ...row, sign_count: Number(row.sign_count) };
}

async function insertSsoProvider(
  insert: InsertRow,
  { provider, saml, domains = [] }: Parameters<GotrueDatabase["insertSsoProvider"]>[0],
): ReturnType<GotrueDatabase["insertSsoProvider"]> {
  const now = new Date();
  const row = await insert<GotrueSsoProvider>("sso_providers", {
    id: randomUUID(),
    created_at: now,
    updated_at: now,
    ...provider,
  });
  const settings = await insert<GotrueSamlProvider>("saml_providers", {
    id: randomUUID(),
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...saml,
    sso_provider_id: row.id,
  });
  const domainRows: GotrueSsoDomain[] = [];
  for (const domain of domains) {
    domainRows.push(
      await insert<GotrueSsoDomain>("sso_domains", {
        id: randomUUID(),
        sso_provider_id: row.id,
        domain,
        created_at: row.created_at,
        updated_at: row.updated_at,
      }),
    );
  }
  return { provider: row, saml: settings, domains: domainRows };
}

// The id is a bigserial, which pg hands over as a string.
async function insertRefreshToken(
  insert: InsertRow,
  token: Insert<Omit<GotrueRefreshToken, "id">, "session_id" | "user_id">,
): Promise<GotrueRefreshToken> {
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
}
