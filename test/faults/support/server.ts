import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { serverCommand } from "@latchkey/server/testing";
import { exitOf, freePort, spawnOwned, stopChild, tailOf, tempDir, track, waitUntil } from "./processes.ts";

const repo = join(import.meta.dirname, "..", "..", "..");
const tsxLoader = pathToFileURL(join(repo, "node_modules", "tsx", "dist", "loader.mjs")).href;

/**
 * `node <args>`: the run's build of the server (server-entry.ts), or FAULTS_SERVER_ENTRY, another entry point, such
 * as `apps/server/src/main.ts` (through tsx as a loader in the server's own process) or a bundle built elsewhere.
 */
function command(): string[] {
  const entry = process.env["FAULTS_SERVER_ENTRY"];
  if (entry === undefined) return serverCommand();
  return entry.endsWith(".ts") ? ["--import", tsxLoader, entry] : [entry];
}

export const JWT_SECRET = "faults-jwt-secret-with-at-least-32-characters";
export const DB_SECRET = "faults-db-secret-with-at-least-32-characters";

/** The production profile on the check's own PostgreSQL, Redis and SMTP sink. */
export interface ServerOptions {
  readonly databaseUrl: string;
  readonly smtpPort: number;
  readonly redisUrl?: string;
  /** Settings over these defaults. */
  readonly env?: Readonly<Record<string, string>>;
  /** Names the log file, for two instances. */
  readonly name?: string;
}

export interface ServerProcess {
  /** http://127.0.0.1:<port>, the same across restarts. */
  readonly url: string;
  /** The pid of the process running now. */
  readonly pid: number;
  /** Sends a signal to the process running now. */
  signal(signal: NodeJS.Signals): void;
  /** Resolves when the process running now exits. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Starts a new process with the same settings and port, once the last one has exited; resolves when it is ready. */
  restart(): Promise<void>;
  /** Every JSON line of the log so far (every process's, as the file is appended to). */
  logLines(): Record<string, unknown>[];
  logTail(chars?: number): string;
}

/** The settings every check's server runs with. */
function settings(options: ServerOptions, port: number, logFile: string): Record<string, string> {
  return {
    DATABASE_URL: options.databaseUrl,
    AUTH_DB_DRIVER: "postgres",
    AUTH_SITE_URL: "http://localhost:3000",
    AUTH_API_EXTERNAL_URL: "http://localhost:9999",
    AUTH_JWT_SECRET: JWT_SECRET,
    AUTH_DB_SECRET: DB_SECRET,
    AUTH_SMTP_HOST: "127.0.0.1",
    AUTH_SMTP_PORT: String(options.smtpPort),
    AUTH_SMTP_ADMIN_EMAIL: "auth@example.com",
    AUTH_MAILER_AUTOCONFIRM: "false",
    PORT: String(port),
    AUTH_LOG_FILE: logFile,
    AUTH_LOG_LEVEL: "info",
    // Every request comes from 127.0.0.1: the per-client and mail limits would refuse a load long before a fault.
    AUTH_RATE_LIMIT_TOKEN_REFRESH: "1000000",
    AUTH_RATE_LIMIT_VERIFY: "1000000",
    AUTH_RATE_LIMIT_OTP: "1000000",
    AUTH_RATE_LIMIT_EMAIL_SENT: "1000000",
    AUTH_RATE_LIMIT_PASSWORD_FAILURES: "1000000",
    ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
    ...options.env,
  };
}

async function answersHealth(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/** Starts the server binary as a child process and waits until GET /health answers 200. */
export async function startServer(options: ServerOptions): Promise<ServerProcess> {
  const name = options.name ?? "server";
  const dir = tempDir(name);
  const logFile = join(dir, `${name}.log`);
  const outputFile = join(dir, `${name}.out`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = settings(options, port, logFile);
  let child: ChildProcess | undefined;

  const start = async () => {
    child = spawnOwned(process.execPath, [...command(), "serve"], { logPath: outputFile, env, cwd: dir });
    const started = child;
    const output = () => `${tailOf(outputFile)}\n${tailOf(logFile)}`;
    await waitUntil(
      `${name} to answer GET /health`,
      async () => {
        // A start that fails prints why on standard error (the process may linger on an open handle).
        if (started.exitCode !== null || tailOf(outputFile).includes("failed to start"))
          throw new Error(`${name} did not start (exit ${started.exitCode}):\n${output()}`);
        return answersHealth(url);
      },
      { timeoutMs: 60_000, intervalMs: 100, explain: output },
    );
  };

  await start();
  track({
    name,
    stop: async () => {
      if (child) await stopChild(child, "SIGKILL");
    },
    kill: () => child?.kill("SIGKILL"),
    logTail: () => `${tailOf(outputFile, 1000)}${tailOf(logFile, 3000)}`,
  });

  return {
    url,
    get pid() {
      return child?.pid ?? 0;
    },
    signal: (signal) => void child?.kill(signal),
    exited: () => (child ? exitOf(child) : Promise.resolve({ code: null, signal: null })),
    async restart() {
      if (child) await exitOf(child);
      await start();
    },
    logLines() {
      let text = "";
      try {
        text = readFileSync(logFile, "utf8");
      } catch {
        return [];
      }
      return text
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return []; // a line cut short by a kill
          }
        });
    },
    logTail: (chars) => `${tailOf(outputFile, 2000)}${tailOf(logFile, chars)}`,
  };
}
