import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync, readFileSync } from "node:fs";
import { createGotrueDatabase, seedManyUsers } from "@latchkey/import-gotrue/testing";
import { residentKiB } from "./process-stats.ts";

/** What one `latchkey import gotrue` cost, from its start to its exit. */
export interface ImportFigures {
  readonly users: number;
  readonly batchSize: number;
  /** Wall time of the whole command: Node's start, the migrations and the import. */
  readonly seconds: number;
  readonly usersPerSecond: number;
  /** The kernel's high-water mark of the command's resident set. */
  readonly peakRssMiB: number;
  /** What the command printed on stdout: users read, and counts written per kind. */
  readonly summary: string;
}

const SAMPLE_EVERY_MS = 100;

/**
 * Seeds a GoTrue database with `users` users (seedManyUsers: a bcrypt or argon2id hash and an email identity each),
 * imports it with the built server's `import gotrue` into the database `env` configures, and drops it.
 */
export async function measureImport(options: {
  readonly adminUrl: string;
  readonly users: number;
  readonly batchSize: number;
  /** The built server: apps/server/dist/main.mjs. */
  readonly entry: string;
  readonly nodeOptions: readonly string[];
  /** The configuration the import writes with: DATABASE_URL, AUTH_DB_NAMESPACE, the secrets. */
  readonly env: Readonly<Record<string, string>>;
  /** Where the command's stderr (its progress and log) goes, as import.log. */
  readonly cwd: string;
}): Promise<ImportFigures> {
  const source = await createGotrueDatabase({ adminUrl: options.adminUrl });
  try {
    await seedManyUsers(source, options.users);
    const args = ["import", "gotrue", "--from", source.url, "--batch-size", String(options.batchSize)];
    const { stdout, seconds, peakKiB } = await runMeasured(options, args);
    const read = /^([\d,]+) users read in /m.exec(stdout);
    if (!read) throw new Error(`the import printed no "N users read":\n${stdout}`);
    const users = Number(read[1]!.replaceAll(",", ""));
    return {
      users,
      batchSize: options.batchSize,
      seconds,
      usersPerSecond: users / seconds,
      peakRssMiB: peakKiB / 1024,
      summary: stdout.trim(),
    };
  } finally {
    await source.drop();
  }
}

/**
 * Runs the entry to its exit, reading its VmHWM every 100 ms: the high-water mark only grows, so the last read
 * before the exit is the peak (less whatever it gained in its last 100 ms).
 */
async function runMeasured(
  options: Parameters<typeof measureImport>[0],
  args: readonly string[],
): Promise<{ stdout: string; seconds: number; peakKiB: number }> {
  const logPath = `${options.cwd}/import.log`;
  const log = openSync(logPath, "w");
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...options.nodeOptions, options.entry, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env["PATH"] ?? "", ...options.env },
    stdio: ["ignore", "pipe", log],
  });
  closeSync(log);
  let stdout = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  let peakKiB = 0;
  const sampler = setInterval(() => {
    try {
      peakKiB = Math.max(peakKiB, residentKiB(child.pid!).highWaterMark);
    } catch {
      // Exited meanwhile.
    }
  }, SAMPLE_EVERY_MS);
  const [code] = (await once(child, "close")) as [number | null];
  const seconds = (performance.now() - startedAt) / 1000;
  clearInterval(sampler);
  if (code !== 0) {
    throw new Error(`the import exited with ${code}:\n${readFileSync(logPath, "utf8").slice(-8000)}`);
  }
  return { stdout, seconds, peakKiB };
}

/** Its own table: the import has no ceiling to be compared with, nor a target. */
export function importTable(figures: ImportFigures): string {
  return [
    "| | users | batch size | s | users/s | peak RSS MiB |",
    "|---|---:|---:|---:|---:|---:|",
    [
      "",
      "import gotrue",
      figures.users,
      figures.batchSize,
      figures.seconds.toFixed(1),
      figures.usersPerSecond.toFixed(0),
      figures.peakRssMiB.toFixed(0),
      "",
    ]
      .join(" | ")
      .trim(),
  ].join("\n");
}
