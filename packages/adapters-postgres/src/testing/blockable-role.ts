import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * A login role of a test's own on the test server, whose connections the test can cut and refuse: the database, as
 * seen by whatever connects as this role, goes down and comes back, while every other test goes on.
 */
export interface BlockableRole {
  /** The test server's URL, as this role, named by `application_name` too. */
  readonly url: string;
  readonly name: string;
  /** Refuses the role's new connections and ends its open ones. */
  block(): Promise<void>;
  /** Accepts its connections again. */
  unblock(): Promise<void>;
  /** Ends its connections, drops what it owns and the role. */
  drop(): Promise<void>;
}

/**
 * PostgreSQL refuses a second concurrent change of one catalog row (two test files granting on schema `public` at
 * once) with "tuple concurrently updated" rather than waiting: tried again, it goes through.
 */
async function catalogWrite<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= 5 || !(error instanceof Error) || error.message !== "tuple concurrently updated") throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }
}

/**
 * Creates the role through `adminUrl` (a superuser's URL: TEST_DATABASE_URL), with a random password (so that it
 * also works where the server wants one); `canCreateTables` lets it create tables in `public`, for a server to
 * migrate as it.
 */
export async function createBlockableRole(
  adminUrl: string,
  options: { canCreateTables?: boolean } = {},
): Promise<BlockableRole> {
  const name = `latchkey_test_${randomBytes(4).toString("hex")}`;
  const password = randomBytes(12).toString("hex");
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const run = async (statement: string) => void (await catalogWrite(() => admin.query(statement)));
  const endConnections = () => run(`select pg_terminate_backend(pid) from pg_stat_activity where usename = '${name}'`);
  await run(`create role ${name} login password '${password}'`);
  if (options.canCreateTables) await run(`grant create, usage on schema public to ${name}`);
  const url = new URL(adminUrl);
  url.username = name;
  url.password = password;
  url.searchParams.set("application_name", name);
  return {
    url: url.toString(),
    name,
    block: async () => {
      await run(`alter role ${name} nologin`);
      await endConnections();
    },
    unblock: () => run(`alter role ${name} login`),
    drop: async () => {
      try {
        await run(`alter role ${name} nologin`);
        await endConnections();
        await run(`drop owned by ${name} cascade`);
        await run(`drop role ${name}`);
      } finally {
        await admin.end();
      }
    },
  };
}
