import { realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { developmentDir, freePort, run, textOf, waitFor } from "../support/binary.ts";

/** The development profile: no DATABASE_URL, so an embedded database in `<cwd>/.latchkey/pgdata`. */
async function developmentEnv(logFile: string): Promise<Record<string, string>> {
  return { PATH: process.env["PATH"] ?? "", PORT: String(await freePort()), AUTH_LOG_FILE: logFile };
}

describe("two development servers in one working directory", () => {
  it("refuses the second while the first runs, and starts again once the first was killed", async () => {
    const cwd = developmentDir();
    const firstLog = join(cwd, "first.log");
    const first = run([], await developmentEnv(firstLog), cwd);
    await waitFor(() => textOf(firstLog).includes('"msg":"listening"'), "the first server to listen", 60_000);

    const second = run([], await developmentEnv(join(cwd, "second.log")), cwd);
    expect(await second.exited).toBe(1);
    const { stderr } = second.output();
    const dataDir = join(realpathSync(cwd), ".latchkey", "pgdata");
    expect(stderr).toContain(
      `the embedded database at ${dataDir} is in use by another Latchkey process (pid ${first.child.pid}): stop that server, or start this one in another working directory or with DATABASE_URL set`,
    );
    expect(stderr).not.toMatch(/^ {4}at /m);

    // A SIGKILL leaves the lock behind; the next start takes it over.
    first.child.kill("SIGKILL");
    await first.exited;
    const thirdLog = join(cwd, "third.log");
    run([], await developmentEnv(thirdLog), cwd);
    await waitFor(() => textOf(thirdLog).includes('"msg":"listening"'), "the third server to listen", 60_000);
  }, 120_000);
});
