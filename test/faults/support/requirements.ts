import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import { postgresBinDir } from "./cluster.ts";
import { asRoot, POSTGRES_USER } from "./processes.ts";

function onPath(program: string): boolean {
  return (process.env["PATH"] ?? "").split(":").some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function userExists(name: string): boolean {
  try {
    execFileSync("id", ["-u", name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the fault suite cannot run on this machine, or undefined when it can: it needs the PostgreSQL server programs,
 * redis-server and util-linux's setpriv (and, as root, a postgres user to run PostgreSQL as). Without them its checks
 * are skipped, saying so, as `pnpm test` needs nothing but Node.js elsewhere; CI's machine has them all.
 */
export const faultSuiteUnavailable: string | undefined = (() => {
  const missing = (() => {
    try {
      postgresBinDir();
    } catch (error) {
      return (error as Error).message;
    }
    if (!onPath("redis-server")) return "no redis-server on the PATH";
    if (!onPath("setpriv")) return "no setpriv (util-linux) on the PATH";
    if (asRoot && !userExists(POSTGRES_USER))
      return `running as root, with no ${POSTGRES_USER} user to run PostgreSQL as`;
    return undefined;
  })();
  return missing === undefined ? undefined : `fault suite: ${missing}`;
})();
