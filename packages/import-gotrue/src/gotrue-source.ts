import pg from "pg";

/** A row as GoTrue's table holds it; columns vary across GoTrue versions, so none is taken for granted. */
export type GotrueRow = Readonly<Record<string, unknown>>;

/** One batch of GoTrue users, with every row of theirs the import reads. */
export interface GotrueBatch {
  readonly users: readonly GotrueRow[];
  readonly identities: readonly GotrueRow[];
  readonly factors: readonly GotrueRow[];
  readonly sessions: readonly GotrueRow[];
  readonly refreshTokens: readonly GotrueRow[];
  readonly amrClaims: readonly GotrueRow[];
}

export interface GotrueSource {
  /** The users an import reads (GoTrue's own instance only). */
  countUsers(): Promise<number>;
  /** Up to `limit` users after `afterId` in id order, and their rows: a keyset walk, so memory stays bounded. */
  readBatch(afterId: string | null, limit: number): Promise<GotrueBatch>;
  /** Up to `limit` audit log entries after `afterId`, in id order; none when GoTrue keeps no audit log. */
  readAuditBatch(afterId: string | null, limit: number): Promise<readonly GotrueRow[]>;
  close(): Promise<void>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** GoTrue's users all carry the nil instance id; other instances' rows (of its multi-tenant past) are not its users. */
const USERS_OF_GOTRUE = `(instance_id IS NULL OR instance_id = '00000000-0000-0000-0000-000000000000')`;

/** Reads GoTrue's tables in `schema` (`auth` in Supabase) of the database at `url`, on one connection. */
export async function openGotrueSource(url: string, schema = "auth"): Promise<GotrueSource> {
  if (!IDENTIFIER.test(schema)) throw new Error(`--schema must be a plain identifier: ${JSON.stringify(schema)}`);
  const client = new pg.Client({ connectionString: url, application_name: "latchkey import" });
  await client.connect();
  try {
    const tables = await present(client, schema);
    if (!tables.has("users")) {
      throw new Error(`no table ${schema}.users in the source database: is it Supabase Auth's, and is --schema right?`);
    }
    const table = (name: string) => `"${schema}"."${name}"`;
    // By the uuid foreign keys, which GoTrue indexes: a batch costs index lookups, whatever the table's size.
    const rowsOf = async (name: string, column: string, ids: readonly string[]) =>
      tables.has(name) && ids.length > 0
        ? (await client.query<GotrueRow>(`SELECT * FROM ${table(name)} WHERE ${column} = ANY($1::uuid[])`, [ids])).rows
        : [];
    return {
      async countUsers() {
        const { rows } = await client.query<{ count: string }>(
          `SELECT count(*) AS count FROM ${table("users")} WHERE ${USERS_OF_GOTRUE}`,
        );
        return Number(rows[0]?.count ?? 0);
      },
      async readBatch(afterId, limit) {
        const { rows: users } = await client.query<GotrueRow>(
          `SELECT * FROM ${table("users")} WHERE ${USERS_OF_GOTRUE} AND ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT $2`,
          [afterId, limit],
        );
        const userIds = users.map((user) => String(user["id"]));
        const sessions = await rowsOf("sessions", "user_id", userIds);
        const sessionIds = sessions.map((session) => String(session["id"]));
        return {
          users,
          identities: await rowsOf("identities", "user_id", userIds),
          factors: await rowsOf("mfa_factors", "user_id", userIds),
          sessions,
          refreshTokens: await rowsOf("refresh_tokens", "session_id", sessionIds),
          amrClaims: await rowsOf("mfa_amr_claims", "session_id", sessionIds),
        };
      },
      async readAuditBatch(afterId, limit) {
        if (!tables.has("audit_log_entries")) return [];
        const { rows } = await client.query<GotrueRow>(
          `SELECT * FROM ${table("audit_log_entries")} WHERE ${USERS_OF_GOTRUE} AND ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT $2`,
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

/** The tables of `schema` the import reads that this GoTrue version has. */
async function present(client: pg.Client, schema: string): Promise<Set<string>> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = $1 AND table_name = ANY($2)`,
    [
      schema,
      ["users", "identities", "mfa_factors", "sessions", "refresh_tokens", "mfa_amr_claims", "audit_log_entries"],
    ],
  );
  return new Set(rows.map((row) => row.name));
}
