import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  exitOf,
  freePort,
  runAsPostgres,
  spawnOwned,
  stopChild,
  tailOf,
  tempDir,
  track,
  waitUntil,
} from "./processes.ts";

/** A PostgreSQL cluster of the check's own, on loopback, with the machine's binaries. */
export interface PostgresCluster {
  readonly port: number;
  /**
   * The server's DATABASE_URL: role `latchkey` (no superuser, so that the slots PostgreSQL keeps for superusers
   * let the checks look in when the server has taken every other) owning database `latchkey`, trusted on loopback.
   */
  readonly url: string;
  /** Whether the postmaster runs. */
  readonly running: boolean;
  /**
   * Immediate shutdown (SIGQUIT to the postmaster): every backend is ended at once and the next start recovers
   * from the WAL, as after a crash.
   */
  kill(): Promise<void>;
  /** Starts it again on the same port and data (crash recovery when it was killed). */
  start(): Promise<void>;
  /** Runs SQL as the superuser in the server's database through psql; returns its rows, columns split on `|`. */
  query(sql: string): string[][];
  /** Runs SQL through psql in the background, as a session of its own (`application_name`), until it ends. */
  session(sql: string, applicationName: string): { readonly ended: Promise<string>; kill(): void };
  /** The postmaster's log so far, for failure messages. */
  logTail(chars?: number): string;
}

/** The folder of the machine's PostgreSQL programs: `pg_config --bindir`, else the newest /usr/lib/postgresql/<v>/bin. */
export function postgresBinDir(): string {
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim());
  } catch {
    // No pg_config on the PATH.
  }
  if (existsSync("/usr/lib/postgresql")) {
    const versions = readdirSync("/usr/lib/postgresql")
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => `/usr/lib/postgresql/${version}/bin`));
  }
  const found = candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres")));
  if (!found) {
    const looked = candidates.join(", ") || "neither from pg_config nor in /usr/lib/postgresql";
    throw new Error(`no PostgreSQL server programs (initdb, postgres): ${looked}`);
  }
  return found;
}

/**
 * initdb under a temporary folder (owned by the postgres user when running as root), then the postmaster on a free
 * loopback port with its socket in that folder. `fsync=off`: a killed postmaster loses nothing the OS has, and the
 * checks kill processes, never the machine. Commits stay synchronous: a commit acknowledged before a kill must
 * survive it, as it does in production.
 */
export async function startPostgresCluster(options: { maxConnections?: number } = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const dir = tempDir("pg", { forPostgres: true });
  const data = join(dir, "data");
  const socketDir = join(dir, "socket");
  const logPath = join(dir, "postgres.log");
  runAsPostgres(join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "postgres",
    "-A",
    "trust",
    "--no-sync",
    "-E",
    "UTF8",
    "--locale=C",
  ]);
  runAsPostgres("mkdir", [socketDir]);
  const port = await freePort();
  const url = `postgres://latchkey@127.0.0.1:${port}/latchkey`;
  let postmaster: ChildProcess | undefined;

  const psql = (sql: string, applicationName = "latchkey-faults", dbname = "latchkey") => [
    "-X",
    "-q",
    "-A",
    "-t",
    "-v",
    "ON_ERROR_STOP=1",
    "-d",
    `host=127.0.0.1 port=${port} user=postgres dbname=${dbname} application_name=${applicationName} connect_timeout=5`,
    "-c",
    sql,
  ];

  const isReady = () => {
    try {
      execFileSync(join(bin, "pg_isready"), ["-q", "-h", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  };

  const start = async () => {
    if (postmaster && postmaster.exitCode === null && postmaster.signalCode === null) return;
    postmaster = spawnOwned(
      join(bin, "postgres"),
      [
        "-D",
        data,
        "-p",
        String(port),
        "-k",
        socketDir,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        `max_connections=${options.maxConnections ?? 100}`,
        "-c",
        "fsync=off",
        "-c",
        "full_page_writes=off",
        "-c",
        "shared_buffers=32MB",
      ],
      { logPath, asPostgres: true, deathSignal: "SIGQUIT" },
    );
    const child = postmaster;
    await waitUntil("PostgreSQL to accept connections", () => child.exitCode === null && isReady(), {
      timeoutMs: 30_000,
      explain: () => `exit ${child.exitCode}; log:\n${tailOf(logPath)}`,
    });
  };

  const kill = async () => {
    if (!postmaster) return;
    await stopChild(postmaster, "SIGQUIT");
    // Its backends end on their own at the postmaster's signal; wait for the port to be refused.
    await waitUntil("PostgreSQL to be down", () => !isReady(), { timeoutMs: 10_000 });
  };

  await start();
  for (const sql of ["create role latchkey login", "create database latchkey owner latchkey"]) {
    execFileSync(join(bin, "psql"), psql(sql, "latchkey-faults", "postgres"), { stdio: "pipe" });
  }
  track({
    name: `PostgreSQL on ${port}`,
    stop: kill,
    kill: () => postmaster?.kill("SIGQUIT"),
    logTail: () => tailOf(logPath, 2000),
  });

  return {
    port,
    url,
    get running() {
      return postmaster !== undefined && postmaster.exitCode === null && postmaster.signalCode === null;
    },
    kill,
    start,
    query(sql) {
      try {
        const out = execFileSync(join(bin, "psql"), psql(sql), { encoding: "utf8", stdio: "pipe", timeout: 30_000 });
        return out
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => line.split("|"));
      } catch (error) {
        const failed = error as { stderr?: string };
        throw new Error(`psql failed: ${sql}\n${failed.stderr ?? ""}`, { cause: error });
      }
    },
    session(sql, applicationName) {
      const child = spawn(join(bin, "psql"), psql(sql, applicationName), { stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      track({
        name: `psql session ${applicationName}`,
        stop: () => stopChild(child, "SIGKILL"),
        kill: () => child.kill("SIGKILL"),
      });
      return { ended: exitOf(child).then(() => output), kill: () => void child.kill("SIGKILL") };
    },
    logTail: (chars) => tailOf(logPath, chars),
  };
}
