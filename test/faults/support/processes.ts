import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { chownSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * What a check started: stopped in reverse order after it, pass or fail (`releaseAll` in `afterEach`), and killed
 * at once if the test process exits without that. Children are also started with a parent-death signal (see
 * `spawnOwned`), so that a test process killed outright leaves no PostgreSQL, Redis or server behind.
 */
interface Resource {
  readonly name: string;
  stop(): Promise<void>;
  /** Synchronous: runs from the process's `exit` event. */
  kill(): void;
  /** The end of its log, printed when the check fails. */
  logTail?(): string;
}

const resources: Resource[] = [];

export function track(resource: Resource): void {
  resources.push(resource);
}

/**
 * Stops everything the check started, newest first; every stop is attempted, and the first failure is thrown. As an
 * `afterEach` hook of a check that failed, first prints the end of each log (the server's, PostgreSQL's, Redis's).
 */
export async function releaseAll(context?: { task: { name: string; result?: { state?: string } } }): Promise<void> {
  if (context?.task.result?.state === "fail") {
    const logs = resources.flatMap((resource) => {
      const tail = resource.logTail?.().trim();
      return tail ? [`--- ${resource.name} (end of its log) ---\n${tail}`] : [];
    });
    if (logs.length > 0) console.error(`"${context.task.name}" failed; the logs:\n${logs.join("\n")}`);
  }
  const failures: unknown[] = [];
  for (const resource of resources.splice(0).reverse()) {
    try {
      await resource.stop();
    } catch (error) {
      failures.push(new Error(`stopping ${resource.name} failed`, { cause: error }));
    }
  }
  if (failures.length > 0) throw failures[0];
}

process.once("exit", () => {
  for (const resource of resources.reverse()) {
    try {
      resource.kill();
    } catch {
      // Already gone.
    }
  }
});

const running = (uid: number) => process.getuid?.() === uid;
/** initdb and postgres refuse to run as root: as root, they run as this user. */
export const POSTGRES_USER = "postgres";
export const asRoot = running(0);

/** A temporary folder of the check's, removed after it; owned by the postgres user when running as root. */
export function tempDir(prefix: string, options: { forPostgres?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), `latchkey-faults-${prefix}-`));
  if (options.forPostgres && asRoot) {
    const uid = Number(execFileSync("id", ["-u", POSTGRES_USER], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", POSTGRES_USER], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  track({
    name: `folder ${dir}`,
    stop: async () => rmSync(dir, { recursive: true, force: true }),
    kill: () => rmSync(dir, { recursive: true, force: true }),
  });
  return dir;
}

/** A port nobody listens on right now, from the kernel. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no TCP port");
  return address.port;
}

/**
 * Spawns a program whose output goes to `logPath`, with a parent-death signal (`setpriv --pdeathsig`) so that it
 * dies with the test process, and, with `asPostgres` while running as root, as the postgres user. `setpriv` execs
 * the program, so the child's pid is the program's own.
 */
export function spawnOwned(
  command: string,
  args: readonly string[],
  options: {
    readonly logPath: string;
    readonly env?: Readonly<Record<string, string>>;
    readonly cwd?: string;
    readonly asPostgres?: boolean;
    readonly deathSignal?: "SIGKILL" | "SIGQUIT" | "SIGTERM";
  },
): ChildProcess {
  const user =
    options.asPostgres && asRoot ? ["--reuid", POSTGRES_USER, "--regid", POSTGRES_USER, "--init-groups"] : [];
  const log = openSync(options.logPath, "a");
  try {
    return spawn("setpriv", [...user, "--pdeathsig", options.deathSignal ?? "SIGKILL", command, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env["PATH"] ?? "", ...options.env },
      stdio: ["ignore", log, log],
    });
  } finally {
    closeSync(log);
  }
}

/** Runs a program to its end as the postgres user (when root), throwing with its output if it fails. */
export function runAsPostgres(command: string, args: readonly string[]): string {
  const full = asRoot
    ? ["setpriv", ["--reuid", POSTGRES_USER, "--regid", POSTGRES_USER, "--init-groups", command, ...args]]
    : [command, args];
  try {
    return execFileSync(full[0] as string, full[1] as string[], { encoding: "utf8", stdio: "pipe" });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${failed.stdout ?? ""}${failed.stderr ?? ""}`, {
      cause: error,
    });
  }
}

/** Resolves when the child has exited (at once if it already has), with its exit code or signal. */
export function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

/** Sends `signal` and waits for the exit, up to `timeoutMs`; then SIGKILL. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals, timeoutMs = 10_000): Promise<void> {
  const exited = exitOf(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const forced = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  await exited;
  clearTimeout(forced);
}

/** Polls `check` every `intervalMs` until it returns true; fails after `timeoutMs` with `what` and `explain()`. */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number; explain?: () => string | Promise<string> },
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > options.timeoutMs) {
      const detail = options.explain ? `\n${await options.explain()}` : "";
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${what}${detail}`);
    }
    await sleep(options.intervalMs ?? 100);
  }
}

/** The last `chars` characters of a file; empty when it does not exist. */
export function tailOf(path: string, chars = 4000): string {
  try {
    return readFileSync(path, "utf8").slice(-chars);
  } catch {
    return "";
  }
}
