import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createPostgres } from "@latchkey/adapters-postgres";
import { dropTables, randomNamespace, testDatabaseUrl } from "@latchkey/adapters-postgres/testing";
import { afterEach } from "vitest";
import { productionEnv } from "./start-test-server.ts";

/** Running the real binary (`apps/server/src/main.ts`) as a child process, as an operator would. */

const repo = join(import.meta.dirname, "..", "..", "..", "..");
// tsx as a loader in the server's own process: its CLI would start the server as a grandchild, which a SIGKILL
// of the CLI leaves running.
const tsxLoader = pathToFileURL(join(repo, "node_modules", "tsx", "dist", "loader.mjs")).href;
const main = join(repo, "apps", "server", "src", "main.ts");
export const databaseUrl = testDatabaseUrl();
const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Runs once the current test ends. */
export function onCleanup(cleanup: () => void | Promise<void>): void {
  cleanups.push(cleanup);
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-bin-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
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
    cleanups.push(async () => {
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
  const child = spawn(process.execPath, ["--import", tsxLoader, main, ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  cleanups.push(() => void child.kill("SIGKILL"));
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
