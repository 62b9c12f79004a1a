import pg from "pg";
import { TOO_MANY_CONNECTIONS } from "./acquire.ts";

/** The database answered, and takes no writes: a standby, or read-only by default for this database or role. */
class DatabaseReadOnly extends Error {
  override readonly name = "DatabaseReadOnly";
}

const codeOf = (error: unknown): unknown =>
  typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;

/**
 * Resolves when the database takes writes, as a connection opened now finds it; rejects when it cannot be reached
 * within `timeoutMs`, refuses the connection, or is read-only (DatabaseReadOnly).
 *
 * Asked on a connection of its own, opened for the check and closed after it: a busy pool or a lock someone holds
 * does not delay the answer, and session defaults changed since the pool's connections opened (`ALTER DATABASE …
 * SET default_transaction_read_only`, a failover to a standby behind the same address) are seen as a new
 * connection sees them. `SHOW transaction_read_only` says it without writing: it is on in a standby and wherever
 * default_transaction_read_only is on (server, database or role); a probe write would cost a table and WAL on every
 * probe. A server that refuses the connection for being full (53300) is not down, as requests wait for the pool's
 * connections: `askThePool` then asks one of those instead.
 */
export async function checkWritable(
  url: string,
  timeoutMs: number,
  askThePool: () => Promise<string | undefined>,
): Promise<void> {
  let readOnly: string | undefined;
  try {
    readOnly = await askOnOwnConnection(url, timeoutMs);
  } catch (error) {
    if (codeOf(error) !== TOO_MANY_CONNECTIONS) throw error;
    readOnly = await askThePool();
  }
  if (readOnly !== "off")
    throw new DatabaseReadOnly(`the database takes no writes (transaction_read_only: ${readOnly})`);
}

async function askOnOwnConnection(url: string, timeoutMs: number): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  // A failure rejects connect() or query(); an 'error' event without a listener would crash.
  client.on("error", () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ transaction_read_only: string }>("SHOW transaction_read_only");
    return rows[0]?.transaction_read_only;
  } finally {
    void client.end().catch(() => undefined);
  }
}
