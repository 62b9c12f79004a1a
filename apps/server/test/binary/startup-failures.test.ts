import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { createPostgres } from "@latchkey/adapters-postgres";
import { missingPostgresServer, randomNamespace } from "@latchkey/adapters-postgres/testing";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { databaseUrl, freePort, onCleanup, run, serverEnv, tempDir, textOf, waitFor } from "../support/binary.ts";
import { startTcpProxy } from "../support/tcp-proxy.ts";

/** The test database's URL with another database name, user or port. */
function urlWith(change: (url: URL) => void): string {
  const url = new URL(databaseUrl!);
  change(url);
  return url.toString();
}

/** What an operator sees when the start fails: exit code 1, one line on stderr and no stack. */
async function failedStart(result: ReturnType<typeof run>): Promise<string> {
  expect(await result.exited).toBe(1);
  const { stderr } = result.output();
  const lines = stderr.trim().split("\n");
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return lines[0]!;
}

// The production profile's starts: on a PostgreSQL server.
describeIfAvailable(missingPostgresServer(), "the binary's start-up failures", () => {
  it("waits DB_STARTUP_WAIT for a database that is not up, saying so once, then says what failed", async () => {
    const port = await freePort();
    const env = serverEnv({
      DATABASE_URL: urlWith((url) => (url.port = String(port))),
      AUTH_DB_STARTUP_WAIT: "2s",
    });
    const started = Date.now();
    const result = run([], env, tempDir());
    const line = await failedStart(result);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(line).toBe(
      `latchkey: the database at 127.0.0.1:${port} cannot be reached (ECONNREFUSED); check that PostgreSQL runs there and DATABASE_URL's host and port (waited 2 s)`,
    );
    const waiting = result
      .output()
      .stdout.split("\n")
      .filter((text) => text.includes("waiting up to 2 s"));
    expect(waiting).toHaveLength(1);
  });

  it("starts once a database that came up late answers", async () => {
    const target = new URL(databaseUrl!);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    onCleanup(() => proxy.close());
    await proxy.cut();
    const cwd = tempDir();
    const logFile = join(cwd, "latchkey.log");
    const env = serverEnv({
      DATABASE_URL: urlWith((url) => (url.port = String(proxy.port))),
      PORT: String(await freePort()),
      AUTH_LOG_FILE: logFile,
    });
    run([], env, cwd);
    await waitFor(() => textOf(logFile).includes("waiting up to 30 s for it (DB_STARTUP_WAIT)"), "the waiting line");
    await proxy.restore();
    await waitFor(() => textOf(logFile).includes('"msg":"listening"'), "the server to listen");
    expect(textOf(logFile)).toContain('"msg":"the database answers"');
  });

  it("says at once that the database does not exist, and how to make it", async () => {
    const result = run(
      [],
      serverEnv({ DATABASE_URL: urlWith((url) => (url.pathname = "/latchkey_no_such_db")) }),
      tempDir(),
    );
    const line = await failedStart(result);
    expect(line).toMatch(
      /^latchkey: database "latchkey_no_such_db" does not exist on [^ ]+; create it \(createdb -h [^ ]+ -p \d+ latchkey_no_such_db\) or fix DATABASE_URL's database name$/,
    );
  });

  it("says at once that PostgreSQL refused the role, naming it and never a password", async () => {
    const env = serverEnv({
      DATABASE_URL: urlWith((url) => {
        url.username = "latchkey_no_such_role";
        url.password = "pw-9c1e";
      }),
    });
    const line = await failedStart(run(["migrate"], env, tempDir()));
    expect(line).toMatch(/^latchkey: PostgreSQL at [^ ]+ refused user "latchkey_no_such_role"/);
    expect(line).not.toContain("pw-9c1e");
  });

  it("says that the port is taken, and by what kind of thing", async () => {
    const taken = createNetServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    onCleanup(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as { port: number }).port;
    const line = await failedStart(run([], serverEnv({ PORT: String(port) }), tempDir()));
    expect(line).toBe(
      `latchkey: port ${port} is in use by another program (another Latchkey?); stop it, or set PORT to a free port`,
    );
  });

  it("finds Supabase Auth's tables where its own would go, and says what to do", async () => {
    const namespace = randomNamespace();
    const postgres = await createPostgres({ url: databaseUrl, namespace, maxPoolSize: 1 });
    onCleanup(async () => {
      for (const table of ["schema_migrations", "users"]) {
        await postgres.db.execute(sql.raw(`DROP TABLE IF EXISTS "${namespace}${table}"`));
      }
      await postgres.close();
    });
    await postgres.db.execute(
      sql.raw(`CREATE TABLE "${namespace}schema_migrations" (version varchar(255) PRIMARY KEY)`),
    );
    await postgres.db.execute(
      sql.raw(`CREATE TABLE "${namespace}users" (id uuid PRIMARY KEY, encrypted_password varchar(255))`),
    );
    const line = await failedStart(run([], serverEnv({ AUTH_DB_NAMESPACE: namespace }), tempDir()));
    expect(line).toBe(
      `latchkey: schema "public" already holds Supabase Auth's tables with the names Latchkey's would have (${namespace}schema_migrations, ${namespace}users); set DB_NAMESPACE (for example DB_NAMESPACE=latchkey_) to give Latchkey's tables names of their own, or point DATABASE_URL at another database; to bring Supabase Auth's users into Latchkey's tables, \`latchkey import gotrue --from <this database>\``,
    );
  });

  it("migrates with the database settings alone, and checks only those", async () => {
    const namespace = randomNamespace();
    const env = { ...serverEnv({ AUTH_DB_NAMESPACE: namespace }) };
    const onlyDatabase = {
      PATH: env["PATH"]!,
      DATABASE_URL: databaseUrl!,
      AUTH_DB_NAMESPACE: namespace,
      AUTH_DB_DRIVER: "postgres",
    };
    const result = run(["migrate"], onlyDatabase, tempDir());
    expect(await result.exited).toBe(0);
    expect(result.output().stdout).toContain('"msg":"migrations applied"');

    const refused = run(
      ["migrate"],
      { ...onlyDatabase, AUTH_DB_MAX_POOL_SIZE: "many", AUTH_JWT_EXP: "soon" },
      tempDir(),
    );
    expect(await refused.exited).toBe(1);
    expect(refused.output().stderr).toContain("AUTH_DB_MAX_POOL_SIZE");
    expect(refused.output().stderr).not.toContain("JWT");
    expect(refused.output().stderr).not.toContain("SITE_URL");
  });
});
