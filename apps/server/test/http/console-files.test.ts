import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConsole } from "@latchkey/console/build";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../src/config/index.ts";
import { builtConsole } from "../../src/http/console-files.ts";
import { StartupFailure } from "../../src/startup/startup-failure.ts";

// CONSOLE_ENABLED serves what `pnpm build` made; on without a build, the start stops and says how to make one.

const consoleOn = (enabled: boolean) => ({ console: { enabled } }) as Config;

describe("the admin console's build, as the server finds it", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "latchkey-console-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is not looked for while CONSOLE_ENABLED is off", () => {
    expect(builtConsole(consoleOn(false), join(dir, "nowhere"))).toBeUndefined();
  });

  it("stops the start when on and not built, saying to run pnpm build", () => {
    const missing = join(dir, "missing");
    expect(() => builtConsole(consoleOn(true), missing)).toThrow(StartupFailure);
    expect(() => builtConsole(consoleOn(true), missing)).toThrow(/CONSOLE_ENABLED.*not built.*run `pnpm build`/);
  });

  it("reads a build: the page, and its script and stylesheet under hashed names", async () => {
    const out = join(dir, "console");
    const built = await buildConsole(out);
    expect(built.script).toMatch(/^console-[A-Z0-9]+\.js$/);
    expect(built.stylesheet).toMatch(/^console-[A-Z0-9]+\.css$/);
    const served = builtConsole(consoleOn(true), out);
    const page = new TextDecoder().decode(served?.files.get("index.html")?.body);
    expect(page).toContain(`<script type="module" src="/console/assets/${built.script}"></script>`);
    expect(page).toContain(`<link rel="stylesheet" href="/console/assets/${built.stylesheet}">`);
    // No inline script or style: the page's CSP allows none.
    expect(page).not.toMatch(/<script>|<style|style="/);
    expect(served?.files.get(`assets/${built.script}`)?.contentType).toBe("text/javascript; charset=utf-8");
    expect(served?.files.get(`assets/${built.stylesheet}`)?.contentType).toBe("text/css; charset=utf-8");
  });
});
