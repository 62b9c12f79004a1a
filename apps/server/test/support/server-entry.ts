import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { inject } from "vitest";
import { buildServer } from "../../build-server.ts";

// Tests that run the real binary run what `pnpm build` makes, built once per run by the global setup: a process
// of the bundle starts in about 0.4 s, one of the sources through tsx in about 1.8 s, and a run starts a hundred.

declare module "vitest" {
  export interface ProvidedContext {
    /** The bundled server's entry (main.mjs), built for this run; absent when the run built none. */
    latchkeyServerEntry?: string;
  }
}

const SERVER_ENTRY_KEY = "latchkeyServerEntry";
const serverPackage = join(import.meta.dirname, "..", "..");

/** Builds the server into a folder of this run's own, provides its entry to the test files, returns the cleanup. */
export async function provideServerBundle(provide: (key: typeof SERVER_ENTRY_KEY, entry: string) => void) {
  // Inside the package, so that the modules the bundle leaves out are found in its node_modules.
  const cache = join(serverPackage, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const outdir = mkdtempSync(join(cache, "latchkey-test-build-"));
  await buildServer(outdir);
  provide(SERVER_ENTRY_KEY, join(outdir, "main.mjs"));
  return () => rmSync(outdir, { recursive: true, force: true });
}

/**
 * How to start the binary: `node <args> <entry>`. The run's bundle; without one (a file run outside this
 * repository's configuration), the sources through tsx as a loader in the server's own process (its CLI would
 * start the server as a grandchild, which a SIGKILL of the CLI leaves running).
 */
export function serverCommand(): string[] {
  let bundle: string | undefined;
  try {
    bundle = inject(SERVER_ENTRY_KEY);
  } catch {
    // Outside a vitest worker there is nothing to inject.
  }
  if (bundle) return [bundle];
  const repo = join(serverPackage, "..", "..");
  const tsxLoader = pathToFileURL(join(repo, "node_modules", "tsx", "dist", "loader.mjs")).href;
  return ["--import", tsxLoader, join(serverPackage, "src", "main.ts")];
}
