import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { inject } from "vitest";
import { createPostgres, type Postgres } from "../create-postgres.ts";
import { tablesOf } from "../schema/create-schema.ts";
import { sharedEmbeddedTestDatabase } from "./embedded-test-database.ts";
import { TEST_DATABASE_URL_KEY } from "./provided-context.ts";

export interface TestDatabase {
  /** The server's URL; undefined when the database is the test process's in-memory PGlite. */
  readonly url: string | undefined;
  readonly namespace: string;
  /** Migrated. */
  readonly postgres: Postgres;
  /** Drops the namespace's tables and closes the connections. */
  close(): Promise<void>;
}

/**
 * The PostgreSQL server to test against: TEST_DATABASE_URL, else the global setup's container, else none (tests
 * then use the embedded database: sharedEmbeddedTestDatabase).
 */
export function testDatabaseUrl(): string | undefined {
  const fromEnv = process.env["TEST_DATABASE_URL"];
  if (fromEnv) return fromEnv;
  try {
    return inject(TEST_DATABASE_URL_KEY);
  } catch {
    // Outside a vitest worker there is nothing to inject.
    return undefined;
  }
}

/**
 * Why a test that needs a PostgreSQL server (more than one connection, server settings, roles, other databases)
 * is skipped on this machine; undefined when there is a server.
 */
export function missingPostgresServer(): string | undefined {
  return testDatabaseUrl() === undefined
    ? "no PostgreSQL server: set TEST_DATABASE_URL, or run a container runtime for testcontainers"
    : undefined;
}

/** A random namespace (`t<hex>_`), so test files can share one database without seeing each other's rows. */
export function randomNamespace(): string {
  return `t${randomBytes(5).toString("hex")}_`;
}

/**
 * A migrated database of its own: a fresh namespace on the test server (see testDatabaseUrl), or, when there is
 * no server, on this process's in-memory PGlite.
 */
export async function createTestDatabase(options: { maxPoolSize?: number } = {}): Promise<TestDatabase> {
  const url = testDatabaseUrl();
  const namespace = randomNamespace();
  const postgres = await createPostgres({
    url,
    sharedEmbedded: url === undefined ? await sharedEmbeddedTestDatabase() : undefined,
    namespace,
    maxPoolSize: options.maxPoolSize ?? 4,
  });
  try {
    await postgres.migrate();
  } catch (error) {
    await postgres.close();
    throw error;
  }
  return {
    url,
    namespace,
    postgres,
    close: async () => {
      try {
        await dropTables(postgres);
      } finally {
        await postgres.close();
      }
    },
  };
}

/** Drops every table of the namespace, the migrations record included, whatever they hold. */
export async function dropTables(postgres: Postgres): Promise<void> {
  await postgres.db.execute(sql`drop table if exists ${sql.join([...tablesOf(postgres.schema)], sql`, `)} cascade`);
}
