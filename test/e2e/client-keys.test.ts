import { join } from "node:path";
import { freePort, run, tempDir, textOf, waitFor } from "@latchkey/server/testing";
import { createClient } from "@supabase/supabase-js";
import { describe, expect, it } from "vitest";
import ws from "ws";
import { memoryStorage } from "./support.ts";

/** `latchkey keys` output as a map. */
function linesOf(text: string): Map<string, string> {
  return new Map(
    text
      .trim()
      .split("\n")
      .map((line) => line.split("=", 2) as [string, string]),
  );
}

/** supabase-js as an app makes it, from what the server printed. */
const supabase = (url: string, key: string) =>
  createClient(url, key, {
    auth: { storage: memoryStorage(), persistSession: false, autoRefreshToken: false },
    realtime: { transport: ws as never },
  });

describe("the keys a client needs", () => {
  it("are said at a development start and printed by `latchkey keys`, and supabase-js works with them", async () => {
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
    const url = keys.get("SUPABASE_URL")!;
    expect(url).toBe(`http://localhost:${port}`);

    // The app's client: a sign-up with the anon key, exactly as the README shows it.
    const app = supabase(url, keys.get("SUPABASE_ANON_KEY")!);
    const signUp = await app.auth.signUp({ email: "ada@example.com", password: "correct horse battery" });
    expect(signUp.error).toBeNull();
    // An admin tool's client, with either service-role key; the anon key is no admin.
    for (const key of [said["service_role_key"]!, keys.get("SUPABASE_SERVICE_ROLE_KEY")!]) {
      const listed = await supabase(url, key).auth.admin.listUsers();
      expect(listed.error).toBeNull();
      expect(listed.data.users.map((user) => user.email)).toEqual(["ada@example.com"]);
    }
    const refused = await app.auth.admin.listUsers();
    expect(refused.error?.status).toBe(403);
    // A first development start creates its embedded database: on a busy 2-core machine that alone can take most of
    // the 60 s the keys line is waited for, so the test may take as long.
  }, 90_000);
});
