// `pnpm bench`: the server's hot paths on real PostgreSQL, against ceilings measured in the same run. See README.md.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createBenchDatabase, createFloorTables, dropBenchDatabase, FLOOR_SESSIONS, postgresVersion } from "./lib/database.ts";
import { createFixtures, type Fixtures } from "./lib/fixtures.ts";
import { type LoadShape, measureLoad } from "./lib/load.ts";
import { watchPostgres, watchProcess } from "./lib/process-stats.ts";
import { freePort, type Started, startProgram } from "./lib/processes.ts";
import { markdownTable, misses, type Row } from "./lib/report.ts";
import * as scenarios from "./lib/scenarios.ts";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..");
const env = process.env;

const settings = {
  adminUrl: env["BENCH_DATABASE_URL"] || "postgres://postgres@127.0.0.1:5432/postgres",
  database: env["BENCH_DATABASE_NAME"] || "latchkey_bench",
  concurrencies: (env["BENCH_CONCURRENCY"] || "1,16,64").split(",").map(Number),
  warmupSeconds: Number(env["BENCH_WARMUP_SECONDS"] || "3"),
  seconds: Number(env["BENCH_SECONDS"] || "10"),
  /** The server's DB_MAX_POOL_SIZE, and the floors' pool: connections for PostgreSQL's cores, not for HTTP's. */
  poolSize: Number(env["BENCH_DB_POOL_SIZE"] || "10"),
  users: 64,
  /** BENCH_ONLY="GET /user,refresh": those scenarios and their ceilings alone, to iterate on one path. */
  only: (env["BENCH_ONLY"] || "").split(",").filter(Boolean),
  updateReadme: process.argv.includes("--update-readme"),
};

const work = mkdtempSync(join(tmpdir(), "latchkey-bench-"));
const started: Started[] = [];
const log = (message: string) => process.stderr.write(`${message}\n`);

async function main(): Promise<void> {
  log("bench: building the server (pnpm build)");
  await promisify(execFile)(process.execPath, ["--import", import.meta.resolve("tsx"), join(root, "apps", "server", "build.ts")]);
  const databaseUrl = await createBenchDatabase(settings.adminUrl, settings.database);
  await createFloorTables(databaseUrl);
  const machine = await describeMachine(databaseUrl);
  log(`bench: ${machine}`);
  const jwtSecret = randomBytes(32).toString("hex");
  const rows: Row[] = [];

  // Users and their sessions first: the read floor selects the same rows GET /user reads.
  let server = await startServer(databaseUrl, jwtSecret);
  log("bench: creating users and sessions");
  const fixtures = await createFixtures(server.url, jwtSecret, { users: settings.users, refreshSessions: FLOOR_SESSIONS });
  await stop(server);

  const runId = randomBytes(4).toString("hex");
  const measured: { name: string; shape: LoadShape; ceiling: string; target?: number }[] = [
    { name: "GET /user", shape: scenarios.getUser(fixtures), ceiling: "read floor", target: 0.8 },
    { name: "refresh", shape: scenarios.refreshToken(fixtures), ceiling: "rotation floor", target: 0.8 },
    { name: "password grant", shape: scenarios.passwordGrant(fixtures), ceiling: "argon2id verify", target: 0.9 },
    { name: "signup", shape: scenarios.signup(runId), ceiling: "argon2id hash", target: 0.8 },
    { name: "GET /settings", shape: scenarios.getSettings(), ceiling: "http floor" },
  ].filter((scenario) => settings.only.length === 0 || settings.only.includes(scenario.name));
  const needed = new Set(measured.map((scenario) => scenario.ceiling));

  const ceilings = new Map<string, number>();
  const ceiling = (name: string, concurrency: number) => ceilings.get(`${name}@${concurrency}`)!;
  for (const kind of ["http", "read", "rotation"] as const) {
    const name = `${kind} floor`;
    if (!needed.has(name)) continue;
    const program = await startFloor(kind, databaseUrl, fixtures);
    for (const concurrency of settings.concurrencies) {
      const row = await measure(name, program, scenarios.floor(kind === "rotation" ? "POST" : "GET"), concurrency);
      ceilings.set(`${name}@${concurrency}`, row.load.requestsPerSecond);
      rows.push(row);
    }
    await stop(program);
  }
  for (const concurrency of needed.has("argon2id hash") || needed.has("argon2id verify") ? settings.concurrencies : []) {
    for (const row of await measureArgon2(concurrency)) {
      ceilings.set(`${row.name}@${concurrency}`, row.load.requestsPerSecond);
      rows.push(row);
    }
  }

  server = await startServer(databaseUrl, jwtSecret);
  for (const scenario of measured) {
    for (const concurrency of settings.concurrencies) {
      const row = await measure(scenario.name, server, scenario.shape, concurrency);
      rows.push({
        ...row,
        ceiling: { name: scenario.ceiling, requestsPerSecond: ceiling(scenario.ceiling, concurrency), target: scenario.target },
      });
    }
  }
  await stop(server);
  await dropBenchDatabase(settings.adminUrl, settings.database);

  const table = markdownTable(rows);
  const missed = rows.flatMap(misses);
  const verdict = missed.length === 0 ? "Every target is met." : `Missed:\n${missed.map((line) => `- ${line}`).join("\n")}`;
  const timing = `${settings.warmupSeconds} s warm-up, then ${settings.seconds} s measured, per row; DB_MAX_POOL_SIZE ${settings.poolSize}.`;
  const report = `${machine}\n${timing}\n\n${table}\n\n${verdict}\n`;
  process.stdout.write(`\n${report}`);
  if (settings.updateReadme) updateReadme(report);
  if (rows.some((row) => row.load.failures > 0)) process.exitCode = 1;
}

async function measure(name: string, program: Started, shape: LoadShape, concurrency: number): Promise<Row> {
  log(`bench: ${name} at concurrency ${concurrency}`);
  let watcher: ReturnType<typeof watchProcess> | undefined;
  let database: ReturnType<typeof watchPostgres> | undefined;
  const { load, watched } = await measureLoad(
    program.url,
    shape,
    { connections: concurrency, warmupSeconds: settings.warmupSeconds, seconds: settings.seconds },
    {
      start: () => {
        watcher = watchProcess(program.pid);
        database = watchPostgres();
      },
      stop: () => ({ ...watcher!.stop(), postgresCpuPercent: database!.stop() }),
    },
  );
  return { name, concurrency, load, process: watched };
}

/** Hashing alone, in a process of its own: the ceiling of each scenario that hashes once per request. */
async function measureArgon2(concurrency: number): Promise<Row[]> {
  log(`bench: argon2id at concurrency ${concurrency}`);
  const entry = join(here, "floors", "argon2-rate.ts");
  const args = ["--import", import.meta.resolve("tsx"), entry, String(concurrency), String(settings.warmupSeconds), String(settings.seconds)];
  const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: work });
  type Rate = { perSecond: number; p50Ms: number; p99Ms: number; cpuPercent: number };
  const figures = JSON.parse(stdout) as { hash: Rate; verify: Rate; peakRssMiB: number };
  const row = (name: string, rate: Rate): Row => ({
    name,
    concurrency,
    load: { requestsPerSecond: rate.perSecond, p50Ms: rate.p50Ms, p99Ms: rate.p99Ms, completed: 0, failures: 0 },
    process: { peakRssMiB: figures.peakRssMiB, cpuPercent: rate.cpuPercent },
  });
  return [row("argon2id hash", figures.hash), row("argon2id verify", figures.verify)];
}

/** What the README's production command passes to `node`. */
const PRODUCTION_NODE_FLAGS = ["--max-semi-space-size=8"];

async function startServer(databaseUrl: string, jwtSecret: string): Promise<Started> {
  const port = await freePort();
  const many = "1000000";
  const program = await startProgram({
    name: "server",
    entry: join(root, "apps", "server", "dist", "main.mjs"),
    args: ["serve"],
    // The flags of the README's production command; BENCH_SERVER_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/p"
    // adds its own, such as a CPU profile of the server under load.
    nodeOptions: [...PRODUCTION_NODE_FLAGS, ...(env["BENCH_SERVER_NODE_OPTIONS"] || "").split(" ").filter(Boolean)],
    cwd: work,
    port,
    readyPath: "/health",
    env: {
      // The production profile, as an operator runs it; a .env in the repository is not read (cwd is elsewhere).
      DATABASE_URL: databaseUrl,
      AUTH_DB_DRIVER: "postgres",
      AUTH_DB_MAX_POOL_SIZE: String(settings.poolSize),
      AUTH_JWT_SECRET: jwtSecret,
      AUTH_SITE_URL: "http://localhost:3000",
      AUTH_API_EXTERNAL_URL: `http://127.0.0.1:${port}`,
      AUTH_API_HOST: "127.0.0.1",
      PORT: String(port),
      // Autoconfirmed signups send no mail; nothing listens here, and nothing is sent.
      AUTH_SMTP_HOST: "127.0.0.1",
      AUTH_SMTP_PORT: "2",
      AUTH_SMTP_ADMIN_EMAIL: "bench@example.com",
      AUTH_MAILER_AUTOCONFIRM: "true",
      // One client address sends everything: per-address limits would measure the limiter.
      AUTH_RATE_LIMIT_VERIFY: many,
      AUTH_RATE_LIMIT_TOKEN_REFRESH: many,
      AUTH_RATE_LIMIT_OTP: many,
      AUTH_RATE_LIMIT_ANONYMOUS_USERS: many,
      // BENCH_SERVER_ENV="UV_THREADPOOL_SIZE=2 LOG_LEVEL=warn" tries other settings.
      ...Object.fromEntries((env["BENCH_SERVER_ENV"] || "").split(" ").filter(Boolean).map((pair) => pair.split("=", 2))),
    },
  });
  started.push(program);
  return program;
}

async function startFloor(kind: "http" | "read" | "rotation", databaseUrl: string, fixtures: Fixtures): Promise<Started> {
  const port = await freePort();
  const program = await startProgram({
    name: `${kind}-floor`,
    entry: join(here, "floors", "floor-server.ts"),
    args: [kind],
    nodeOptions: (env["BENCH_FLOOR_NODE_OPTIONS"] || "").split(" ").filter(Boolean),
    cwd: work,
    port,
    readyPath: "/ready",
    env: {
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      POOL_SIZE: String(settings.poolSize),
      USER_IDS: fixtures.userIds.join(","),
    },
  });
  started.push(program);
  return program;
}

async function stop(program: Started): Promise<void> {
  await program.stop();
  started.splice(started.indexOf(program), 1);
}

async function describeMachine(databaseUrl: string): Promise<string> {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  const memory = `${Math.round(totalmem() / 2 ** 30)} GiB`;
  return `${cpu}, ${availableParallelism()} cores, ${memory}; Node ${process.version}; PostgreSQL ${await postgresVersion(databaseUrl)} on the same machine; load from autocannon in a second process over loopback.`;
}

const START = "<!-- results:start -->";
const END = "<!-- results:end -->";

function updateReadme(report: string): void {
  const path = join(here, "README.md");
  const text = readFileSync(path, "utf8");
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${path} has no ${START} … ${END} section`);
  writeFileSync(path, `${text.slice(0, from + START.length)}\n${report}${text.slice(to)}`);
}

try {
  await main();
} finally {
  await Promise.all(started.map((program) => program.stop()));
  rmSync(work, { recursive: true, force: true });
}
