import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPostgres } from "@latchkey/adapters-postgres";
import { dropTables, prefillDataDir, randomNamespace, testDatabaseUrl } from "@latchkey/adapters-postgres/testing";
import { onTestFinished } from "vitest";
import { serverCommand } from "./server-entry.ts";
import { productionEnv } from "./start-test-server.ts";

/** Running the real binary (the run's build of it: server-entry.ts) as a child process, as an operator would. */

export const databaseUrl = testDatabaseUrl();
/**
 * Runs once the current test ends, pass or fail, after what was registered later; called outside a test (in a
 * beforeAll), when the test process exits, which suits what is synchronous: killing a child, removing a folder. (A
 * hook of the test's own: files sharing a module registry evaluate this module once, so a module-level afterEach
 * would serve the first file alone.)
 */
export function onCleanup(cleanup: () => void | Promise<void>): void {
  try {
    onTestFinished(async () => {
      await cleanup();
    });
  } catch {
    process.once("exit", () => void cleanup());
  }
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-bin-"));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A working directory for the development profile, its embedded database (`.latchkey/pgdata`) already made, as after
 * a first start: initdb takes 4 s, and tests of anything else have no need to wait for it.
 */
export function developmentDir(): string {
  const dir = tempDir();
  prefillDataDir(join(dir, ".latchkey", "pgdata"));
  return dir;
}

/** A working directory for a server on serverEnv's database. */
export function serverDir(): string {
  return databaseUrl ? tempDir() : developmentDir();
}

export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Production settings on the test database when there is one; the development profile otherwise. */
export function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  const namespace = randomNamespace();
  if (databaseUrl) {
    onCleanup(async () => {
      const postgres = await createPostgres({ url: databaseUrl, namespace, maxPoolSize: 1 });
      await dropTables(postgres).finally(() => postgres.close());
    });
  }
  return { PATH: process.env["PATH"] ?? "", AUTH_DB_NAMESPACE: namespace, ...productionEnv(databaseUrl), ...extra };
}

export interface RunningBinary {
  readonly child: ReturnType<typeof spawn>;
  /** The exit code once it exits. */
  readonly exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
}

/** Starts `latchkey <args>` in `cwd` with exactly `env`; killed when the test ends. */
export function run(args: string[], env: Record<string, string>, cwd: string): RunningBinary {
  const child = spawn(process.execPath, [...serverCommand(), ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  onCleanup(() => void child.kill("SIGKILL"));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

/** The file's text; empty until it exists. */
export function textOf(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

export async function waitFor(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
