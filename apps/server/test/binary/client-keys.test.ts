import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, run, tempDir, textOf, waitFor } from "../support/binary.ts";

/** `latchkey keys` output as a map. */
function linesOf(text: string): Map<string, string> {
  return new Map(
    text
      .trim()
      .split("\n")
      .map((line) => line.split("=", 2) as [string, string]),
  );
}

describe("the keys a client needs", () => {
  it("are said at a development start and printed by `latchkey keys`, and both work against the server", async () => {
    const cwd = tempDir();
    const port = await freePort();
    const logFile = join(cwd, "latchkey.log");
    const env = { PATH: process.env["PATH"] ?? "", PORT: String(port), AUTH_LOG_FILE: logFile };
    run([], env, cwd);
    await waitFor(() => textOf(logFile).includes('"anon_key"'), "the keys line", 60_000);
    const said = JSON.parse(
      textOf(logFile)
        .split("\n")
        .find((line) => line.includes('"anon_key"'))!,
    ) as Record<string, string>;
    expect(said["url"]).toBe(`http://localhost:${port}`);

    const printed = run(["keys"], env, cwd);
    expect(await printed.exited).toBe(0);
    const keys = linesOf(printed.output().stdout);
    expect(keys.get("SUPABASE_URL")).toBe(`http://localhost:${port}`);

    const admin = (key: string) =>
      fetch(`http://127.0.0.1:${port}/admin/users`, { headers: { authorization: `Bearer ${key}`, apikey: key } });
    for (const key of [said["service_role_key"]!, keys.get("SUPABASE_SERVICE_ROLE_KEY")!]) {
      expect((await admin(key)).status).toBe(200);
    }
    const anon = await admin(keys.get("SUPABASE_ANON_KEY")!);
    expect(anon.status).toBe(403);
  });
});
