import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface Started {
  readonly pid: number;
  readonly url: string;
  stop(): Promise<void>;
}

/** A port nobody listens on right now, from the kernel. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (address === null || typeof address === "string") throw new Error("no TCP port");
  return address.port;
}

/**
 * Runs an entry point in its own Node process (tsx as a loader for TypeScript, so the pid is the program's own), and
 * waits until `readyPath` answers 200 on `port`. Its output goes to `<cwd>/<name>.log`: a file costs the program a
 * write, as a log collector's pipe would, and costs the load generator nothing.
 */
export async function startProgram(options: {
  readonly name: string;
  /** A TypeScript file, run through tsx, or a JavaScript one (.mjs), run as it is. */
  readonly entry: string;
  readonly args?: readonly string[];
  /** Flags for Node itself, such as --cpu-prof. */
  readonly nodeOptions?: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly port: number;
  readonly readyPath: string;
}): Promise<Started> {
  const logPath = `${options.cwd}/${options.name}.log`;
  const log = openSync(logPath, "w");
  const loader = options.entry.endsWith(".ts") ? ["--import", import.meta.resolve("tsx")] : [];
  const nodeOptions = options.nodeOptions ?? [];
  const child = spawn(process.execPath, [...nodeOptions, ...loader, options.entry, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { PATH: process.env["PATH"] ?? "", ...options.env },
    stdio: ["ignore", log, log],
  });
  closeSync(log);

  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 60_000;
  while (!(await answers(`${url}${options.readyPath}`))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(
        `${options.name} did not start (exit ${child.exitCode}):\n${readFileSync(logPath, "utf8").slice(-8000)}`,
      );
    }
    await sleep(100);
  }
  return { pid: child.pid!, url, stop: () => stopChild(child) };
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url);
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const forced = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(forced);
}
