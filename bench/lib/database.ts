import pg from "pg";

/** The server's database, made afresh for every run so that figures never depend on what an earlier run left. */
export async function createBenchDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropBenchDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>("SHOW server_version");
    return rows[0]!.server_version;
  } finally {
    await client.end();
  }
}

/** Rows the rotation floor locks: as many as the refresh scenario's sessions, so both contend alike. */
export const FLOOR_SESSIONS = 2048;

/**
 * The rotation floor's own tables, shaped like a session and its refresh tokens: a row locked and updated by its
 * primary key, and a row inserted into a table with a unique index on a digest and a foreign key to the first.
 */
export async function createFloorTables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`
      CREATE SCHEMA bench_floor;
      CREATE TABLE bench_floor.sessions (
        id uuid PRIMARY KEY,
        refreshed_at timestamptz,
        refresh_token_id uuid
      );
      CREATE TABLE bench_floor.tokens (
        id uuid PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES bench_floor.sessions (id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX ON bench_floor.tokens (session_id);
      INSERT INTO bench_floor.sessions (id) SELECT gen_random_uuid() FROM generate_series(1, ${FLOOR_SESSIONS});
    `);
    return (await client.query<{ id: string }>("SELECT id FROM bench_floor.sessions")).rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}
