import pg from "pg";

/** A row as GoTrue's table holds it; columns vary across GoTrue versions, so none is taken for granted. */
export type GotrueRow = Readonly<Record<string, unknown>>;

/** One batch of GoTrue users, with every row of theirs the import reads. */
export interface GotrueBatch {
  readonly users: readonly GotrueRow[];
  readonly identities: readonly GotrueRow[];
  readonly factors: readonly GotrueRow[];
  /** Passkeys (`webauthn_credentials`); none before GoTrue had them. */
  readonly passkeys: readonly GotrueRow[];
  readonly sessions: readonly GotrueRow[];
  readonly refreshTokens: readonly GotrueRow[];
  readonly amrClaims: readonly GotrueRow[];
}

/** GoTrue's SSO providers: every row of its `sso_providers`, `saml_providers` and `sso_domains` (none before it had SAML). */
export interface GotrueSsoRows {
  readonly providers: readonly GotrueRow[];
  readonly samlProviders: readonly GotrueRow[];
  readonly domains: readonly GotrueRow[];
}

/**
 * A batch as read: up to `limit` rows of the users table, GoTrue's and any other instance's (which the mapping
 * skips, saying why), and where the walk goes on.
 */
export interface SourceBatch extends GotrueBatch {
  /** The last users row read: the next batch starts after it. Null when none was. */
  readonly lastRead: string | null;
  /** The users table had no row after these. */
  readonly end: boolean;
}

export interface GotrueSource {
  /** The rows of the users table, each of which an import brings or skips. */
  countUsers(): Promise<number>;
  /**
   * The next `limit` rows of the users table after `afterId` in id order, and their rows: a keyset walk, so memory
   * stays bounded.
   */
  readBatch(afterId: string | null, limit: number): Promise<SourceBatch>;
  /** Every SSO provider with its SAML settings and domains (none before GoTrue had SAML). */
  readSsoProviders(): Promise<GotrueSsoRows>;
  /** Up to `limit` audit log entries after `afterId`, in id order; none when GoTrue keeps no audit log. */
  readAuditBatch(afterId: string | null, limit: number): Promise<readonly GotrueRow[]>;
  close(): Promise<void>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Audit entries of other instances (GoTrue's multi-tenant past) are not its users'. */
const OF_GOTRUE = "(instance_id IS NULL OR instance_id = '00000000-0000-0000-0000-000000000000')";

/**
 * Reads GoTrue's tables in `schema` (`auth` in Supabase) of the database at `url`, on one connection; first checks
 * that they are GoTrue's, so that an import from anything else stops before it writes.
 */
export async function openGotrueSource(url: string, schema = "auth"): Promise<GotrueSource> {
  if (!IDENTIFIER.test(schema)) throw new Error(`--schema must be a plain identifier: ${JSON.stringify(schema)}`);
  const client = new pg.Client({ connectionString: url, application_name: "latchkey import" });
  await client.connect();
  try {
    const tables = await present(client, schema);
    await checkGotrue(client, schema, tables);
    const table = (name: string) => `"${schema}"."${name}"`;
    // By the uuid foreign keys, which GoTrue indexes: a batch costs an index lookup per id, whatever the table's
    // size. A lateral subquery (OFFSET 0 keeps it one) holds the planner to them: without statistics (a restored
    // dump, a database without autovacuum) it answers `= ANY` of the ids with a scan of the whole table, every batch.
    // Its estimates are then large enough for JIT compilation, which would cost more than the lookups: hence no JIT.
    await client.query("SET jit = off").catch(() => undefined);
    const rowsOf = async (name: string, column: string, ids: readonly string[]) =>
      tables.has(name) && ids.length > 0
        ? (
            await client.query<GotrueRow>(
              `SELECT t.* FROM unnest($1::uuid[]) AS wanted(id)
               CROSS JOIN LATERAL (SELECT * FROM ${table(name)} WHERE ${column} = wanted.id OFFSET 0) AS t`,
              [ids],
            )
          ).rows
        : [];
    return {
      async countUsers() {
        const { rows } = await client.query<{ count: string }>(`SELECT count(*) AS count FROM ${table("users")}`);
        return Number(rows[0]?.count ?? 0);
      },
      async readBatch(afterId, limit) {
        // Every instance's rows, in the primary key's order: the mapping skips other instances' users, saying so.
        // (With a condition on instance_id, a planner without statistics, as of a restored dump or a database
        // without autovacuum, takes its index and sorts the whole table for every batch: bench/README.md.)
        const { rows: users } = await client.query<GotrueRow>(
          `SELECT * FROM ${table("users")} WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT $2`,
          [afterId, limit],
        );
        const userIds = users.map((user) => String(user["id"]));
        const sessions = await rowsOf("sessions", "user_id", userIds);
        const sessionIds = sessions.map((session) => String(session["id"]));
        return {
          lastRead: users.length === 0 ? null : String(users.at(-1)!["id"]),
          end: users.length < limit,
          users,
          identities: await rowsOf("identities", "user_id", userIds),
          factors: await rowsOf("mfa_factors", "user_id", userIds),
          passkeys: await rowsOf("webauthn_credentials", "user_id", userIds),
          sessions,
          refreshTokens: await rowsOf("refresh_tokens", "session_id", sessionIds),
          amrClaims: await rowsOf("mfa_amr_claims", "session_id", sessionIds),
        };
      },
      readSsoProviders: () => ssoProviderRows(client, tables, table),
      async readAuditBatch(afterId, limit) {
        if (!tables.has("audit_log_entries")) return [];
        const { rows } = await client.query<GotrueRow>(
          `SELECT * FROM ${table("audit_log_entries")} WHERE ${OF_GOTRUE} AND ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT $2`,
          [afterId, limit],
        );
        return rows;
      },
      close: () => client.end(),
    };
  } catch (error) {
    await client.end();
    throw error;
  }
}

/** GoTrue's SSO providers: every row of their three tables, in a stable order. */
async function ssoProviderRows(
  client: pg.Client,
  tables: ReadonlySet<string>,
  table: (name: string) => string,
): Promise<GotrueSsoRows> {
  const everyRow = async (name: string, order: string) =>
    tables.has(name) ? (await client.query<GotrueRow>(`SELECT * FROM ${table(name)} ORDER BY ${order}`)).rows : [];
  return {
    providers: await everyRow("sso_providers", "created_at, id"),
    samlProviders: await everyRow("saml_providers", "sso_provider_id, id"),
    domains: await everyRow("sso_domains", "sso_provider_id, domain"),
  };
}

/** Columns every GoTrue version's users table has (its first migration's) that the import relies on. */
const USERS_COLUMNS = ["instance_id", "id", "aud", "role", "email", "encrypted_password", "created_at", "updated_at"];

/** Refuses a source that is not GoTrue's: no such schema, no users or refresh_tokens table, or another users table. */
async function checkGotrue(client: pg.Client, schema: string, tables: ReadonlySet<string>): Promise<void> {
  const hint = "is it Supabase Auth's database, and is --schema right?";
  const { rowCount } = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
  if (!rowCount) throw new Error(`the source database has no schema ${schema}: ${hint}`);
  const missing = ["users", "refresh_tokens"].filter((name) => !tables.has(name));
  if (missing.length > 0) {
    throw new Error(
      `the source database has no table ${missing.map((name) => `${schema}.${name}`).join(" or ")}: ${hint}`,
    );
  }
  const { rows } = await client.query<{ name: string }>(
    "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'users'",
    [schema],
  );
  const columns = new Set(rows.map((row) => row.name));
  const absent = USERS_COLUMNS.filter((name) => !columns.has(name));
  if (absent.length > 0) {
    throw new Error(`${schema}.users in the source database is not Supabase Auth's: it has no ${absent.join(", ")}`);
  }
}

/** The tables of `schema` the import reads that this GoTrue version has. */
async function present(client: pg.Client, schema: string): Promise<Set<string>> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = $1 AND table_name = ANY($2)`,
    [
      schema,
      [
        "users",
        "identities",
        "mfa_factors",
        "webauthn_credentials",
        "sessions",
        "refresh_tokens",
        "mfa_amr_claims",
        "audit_log_entries",
        "sso_providers",
        "saml_providers",
        "sso_domains",
      ],
    ],
  );
  return new Set(rows.map((row) => row.name));
}
