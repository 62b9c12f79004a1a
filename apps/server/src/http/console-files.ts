import { fileURLToPath } from "node:url";
import { readConsoleFiles } from "@latchkey/console";
import type { ConsoleFiles } from "@latchkey/http-hono";
import type { Config } from "../config/index.ts";
import { StartupFailure } from "../startup/startup-failure.ts";

/**
 * Where `pnpm build` puts the console: dist/console, beside the bundle, which this module is part of once built,
 * and which is found from here when run from the sources.
 */
const BUILT_CONSOLE = [
  fileURLToPath(new URL("console/", import.meta.url)),
  fileURLToPath(new URL("../../dist/console/", import.meta.url)),
];

/**
 * CONSOLE_ENABLED: the console's built files, read once at start; undefined when it is off. On, without a build,
 * the start stops rather than serving a console that is not there.
 */
export function builtConsole(config: Config, dir?: string): ConsoleFiles | undefined {
  if (!config.console.enabled) return undefined;
  const dirs = dir === undefined ? BUILT_CONSOLE : [dir];
  for (const candidate of dirs) {
    const files = readConsoleFiles(candidate);
    if (files) return { files };
  }
  throw new StartupFailure(
    `CONSOLE_ENABLED is true but the console is not built (no index.html in ${dirs.join(" or ")}): run \`pnpm build\``,
  );
}
