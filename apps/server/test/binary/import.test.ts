import { describe, expect, it } from "vitest";
import { freePort, run, serverEnv, tempDir } from "../support/binary.ts";

describe("latchkey import", () => {
  it("says what is missing, with the usage", async () => {
    const result = run(["import", "gotrue"], serverEnv(), tempDir());
    expect(await result.exited).toBe(2);
    expect(result.output().stderr).toMatch(/^--from is required: the URL of Supabase Auth's database\nusage:/);
    const badAfter = run(["import", "gotrue", "--from", "postgres://h/d", "--after", "nope"], serverEnv(), tempDir());
    expect(await badAfter.exited).toBe(2);
    expect(badAfter.output().stderr).toMatch(/^--after: the id of a user \(a uuid\)\nusage:/);
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
    expect(missing.output().stderr).toMatch(/^--from-env: the environment has no NO_SUCH_VARIABLE\nusage:/);
    const both = run(["import", "gotrue", "--from", "postgres://h/d", "--from-env", "GOTRUE_SOURCE"], env, tempDir());
    expect(await both.exited).toBe(2);
    expect(both.output().stderr).toMatch(/^--from or --from-env, not both\nusage:/);
  });
});
