import { createPostgres } from "@latchkey/adapters-postgres";
import { missingPostgresServer } from "@latchkey/adapters-postgres/testing";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { createGotrueDatabase } from "@latchkey/import-gotrue/testing";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { databaseUrl, freePort, run, serverEnv, tempDir } from "../support/binary.ts";

const HELP = "see latchkey import gotrue --help";

describe("latchkey import", () => {
  it("says in one line what is missing, and where the help is", async () => {
    const result = run(["import", "gotrue"], serverEnv(), tempDir());
    expect(await result.exited).toBe(2);
    expect(result.output().stderr).toBe(`latchkey: --from is required: the URL of Supabase Auth's database; ${HELP}\n`);
    const badAfter = run(["import", "gotrue", "--from", "postgres://h/d", "--after", "nope"], serverEnv(), tempDir());
    expect(await badAfter.exited).toBe(2);
    expect(badAfter.output().stderr).toBe(`latchkey: --after: the id of a user (a uuid); ${HELP}\n`);
  });

  it("says in one line that the source cannot be reached, never its password", async () => {
    const port = await freePort();
    const from = `postgres://postgres:source-pw-7@127.0.0.1:${port}/postgres`;
    const result = run(["import", "gotrue", "--from", from, "--dry-run"], serverEnv(), tempDir());
    expect(await result.exited).toBe(1);
    const { stderr } = result.output();
    expect(stderr.trim()).toBe(
      `latchkey: the source (--from): the database at 127.0.0.1:${port} cannot be reached (ECONNREFUSED); check that PostgreSQL runs there and --from's host and port`,
    );
    expect(stderr).not.toContain("source-pw-7");
  });

  it("takes the source's URL from the variable --from-env names, keeping the password off the command line", async () => {
    const port = await freePort();
    const env = { ...serverEnv(), GOTRUE_SOURCE: `postgres://postgres:source-pw-8@127.0.0.1:${port}/postgres` };
    const result = run(["import", "gotrue", "--from-env", "GOTRUE_SOURCE", "--dry-run"], env, tempDir());
    expect(await result.exited).toBe(1);
    expect(result.output().stderr.trim()).toContain(`the database at 127.0.0.1:${port} cannot be reached`);
    expect(result.output().stderr).not.toContain("source-pw-8");

    const missing = run(["import", "gotrue", "--from-env", "NO_SUCH_VARIABLE"], serverEnv(), tempDir());
    expect(await missing.exited).toBe(2);
    expect(missing.output().stderr).toBe(`latchkey: --from-env: the environment has no NO_SUCH_VARIABLE; ${HELP}\n`);
    const both = run(["import", "gotrue", "--from", "postgres://h/d", "--from-env", "GOTRUE_SOURCE"], env, tempDir());
    expect(await both.exited).toBe(2);
    expect(both.output().stderr).toBe(`latchkey: --from or --from-env, not both; ${HELP}\n`);
  });
});

describeIfAvailable(missingPostgresServer(), "latchkey import from a source it cannot read", () => {
  /** This server's tables: the namespace's, in the database DATABASE_URL names. */
  const tablesOf = async (namespace: string) => {
    const postgres = await createPostgres({ url: databaseUrl, namespace, maxPoolSize: 1 });
    try {
      const { rows } = (await postgres.db.execute(
        sql`select tablename from pg_tables where starts_with(tablename, ${namespace})`,
      )) as unknown as { rows: { tablename: string }[] };
      return rows.map((row) => row.tablename);
    } finally {
      await postgres.close();
    }
  };

  it("stops in one line before writing anything, migrations included, when the source is not GoTrue's", async () => {
    const gotrue = await createGotrueDatabase({ adminUrl: databaseUrl! });
    try {
      const env = serverEnv();
      const importFrom = async (...extra: string[]) => {
        const result = run(["import", "gotrue", "--from", gotrue.url, ...extra], env, tempDir());
        expect(await result.exited).toBe(1);
        return result.output().stderr.trim();
      };
      const hint = "is it Supabase Auth's database, and is --schema right?";
      expect(await importFrom("--schema", "nope")).toBe(
        `latchkey: the source (--from): the source database has no schema nope: ${hint}`,
      );
      await gotrue.client.query("alter table auth.users drop column instance_id, drop column encrypted_password");
      expect(await importFrom()).toBe(
        "latchkey: the source (--from): auth.users in the source database is not Supabase Auth's: it has no instance_id, encrypted_password",
      );
      await gotrue.client.query("drop table auth.refresh_tokens cascade");
      expect(await importFrom()).toBe(
        `latchkey: the source (--from): the source database has no table auth.refresh_tokens: ${hint}`,
      );
      const port = await freePort();
      const unreachable = run(
        ["import", "gotrue", "--from", `postgres://postgres@127.0.0.1:${port}/postgres`],
        env,
        tempDir(),
      );
      expect(await unreachable.exited).toBe(1);
      expect(await tablesOf(env["AUTH_DB_NAMESPACE"]!)).toEqual([]);
    } finally {
      await gotrue.drop();
    }
  });
});
