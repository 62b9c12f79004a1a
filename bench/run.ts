// `pnpm bench`: the server's hot paths on real PostgreSQL, against ceilings measured in the same run. See README.md.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { newKeyRing } from "@latchkey/adapters-crypto";
import { DEFAULT_BATCH_SIZE } from "@latchkey/import-gotrue";
import {
  BETTER_AUTH_ROWS,
  type BetterAuthRow,
  betterAuthTable,
  entryOf,
  getSession,
  signIn,
  signUpUsers,
  startBetterAuth,
} from "./lib/better-auth.ts";
import { type SoakFigures, soakCleanup, soakTable } from "./lib/cleanup-soak.ts";
import {
  createBenchDatabase,
  createFloorTables,
  dropBenchDatabase,
  FLOOR_SESSIONS,
  postgresVersion,
} from "./lib/database.ts";
import { accessTokensFrom, createFixtures, type Fixtures } from "./lib/fixtures.ts";
import { checkHookRan, createHookFunction, hookSecret } from "./lib/hooks.ts";
import { type ImportFigures, importTable, measureImport } from "./lib/import-gotrue.ts";
import { type LoadShape, measureLoad } from "./lib/load.ts";
import { watchPostgres, watchProcess } from "./lib/process-stats.ts";
import { freePort, type Started, startProgram } from "./lib/processes.ts";
import { combineRounds, compareRounds, markdownTable, misses, type Row } from "./lib/report.ts";
import * as scenarios from "./lib/scenarios.ts";
import { variantCostTable } from "./lib/variant-cost.ts";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..");
const env = process.env;

const settings = {
  adminUrl: env["BENCH_DATABASE_URL"] || "postgres://postgres@127.0.0.1:5432/postgres",
  database: env["BENCH_DATABASE_NAME"] || "latchkey_bench",
  concurrencies: (env["BENCH_CONCURRENCY"] || "1,16,64").split(",").map(Number),
  warmupSeconds: Number(env["BENCH_WARMUP_SECONDS"] || "2"),
  seconds: Number(env["BENCH_SECONDS"] || "6"),
  /** Rounds per row, each paired with a round of its ceiling. */
  rounds: Number(env["BENCH_ROUNDS"] || "3"),
  /** The server's DB_MAX_POOL_SIZE, and the floors' pool: connections for PostgreSQL's cores, not for HTTP's. */
  poolSize: Number(env["BENCH_DB_POOL_SIZE"] || "10"),
  users: 64,
  /** BENCH_ONLY="GET /user,refresh": those scenarios and their ceilings alone, to iterate on one path. */
  only: (env["BENCH_ONLY"] || "").split(",").filter(Boolean),
  /** The GoTrue users `import gotrue` reads, and how many it reads at a time. */
  importUsers: Number(env["BENCH_IMPORT_USERS"] || "100000"),
  importBatchSize: Number(env["BENCH_IMPORT_BATCH_SIZE"] || String(DEFAULT_BATCH_SIZE)),
  /** The clean-up soak: refreshes over its sessions, and the length of its two timed windows. */
  soakRefreshes: Number(env["BENCH_SOAK_REFRESHES"] || "1000000"),
  soakSessions: Number(env["BENCH_SOAK_SESSIONS"] || "1000"),
  soakWindowSeconds: Number(env["BENCH_SOAK_WINDOW_SECONDS"] || "20"),
  updateReadme: process.argv.includes("--update-readme"),
};

const work = mkdtempSync(join(tmpdir(), "latchkey-bench-"));
const started: Started[] = [];
const log = (message: string) => process.stderr.write(`${message}\n`);
const wanted = (name: string) => settings.only.length === 0 || settings.only.includes(name);
/** The rows measured on their own, after the rows under load: alone with BENCH_ONLY="import gotrue" (or the soak). */
const IMPORT_ROW = "import gotrue";
const SOAK_ROW = "cleanup soak";
const ownRows = [IMPORT_ROW, SOAK_ROW];

async function main(): Promise<void> {
  log("bench: building the server (pnpm build)");
  await promisify(execFile)(process.execPath, [
    "--import",
    import.meta.resolve("tsx"),
    join(root, "apps", "server", "build.ts"),
  ]);
  const databaseUrl = await createBenchDatabase(settings.adminUrl, settings.database);
  const machine = await describeMachine(databaseUrl);
  log(`bench: ${machine}`);
  const jwtSecret = randomBytes(32).toString("hex");
  const underLoad = settings.only.length === 0 || settings.only.some((name) => !ownRows.includes(name));
  const rows = underLoad ? await measureUnderLoad(databaseUrl, jwtSecret) : [];
  const imported = wanted(IMPORT_ROW) ? await measureImportRow(databaseUrl, jwtSecret) : undefined;
  const soaked = wanted(SOAK_ROW) ? await measureSoak(databaseUrl, jwtSecret) : undefined;
  await dropBenchDatabase(settings.adminUrl, settings.database);
  await dropBenchDatabase(settings.adminUrl, betterAuthDatabase());

  const report = reportOf(machine, rows, imported, soaked);
  process.stdout.write(`\n${report}`);
  if (settings.updateReadme) updateReadme(report);
  if (rows.some((row) => row.load.failures > 0)) process.exitCode = 1;
}

/** The machine, the rows under load with their timing and verdict, and the import's own table: each when measured. */
function reportOf(
  machine: string,
  rows: readonly Row[],
  imported: ImportFigures | undefined,
  soaked: SoakFigures | undefined,
): string {
  const sections: string[] = [];
  if (rows.length === 0) sections.push(machine);
  else {
    const missed = rows.flatMap(misses);
    const verdict =
      missed.length === 0 ? "Every target is met." : `Missed:\n${missed.map((line) => `- ${line}`).join("\n")}`;
    const timing =
      `Each row: ${settings.rounds} rounds, each a ${settings.warmupSeconds} s warm-up then ${settings.seconds} s measured, ` +
      `alternating with a round of its ceiling; figures from the median round, the ratio the median of the rounds' ` +
      `ratios (their range in brackets); DB_MAX_POOL_SIZE ${settings.poolSize}.`;
    sections.push(`${machine}\n${timing}`, markdownTable(rows), verdict);
    const costs = variantCostTable(rows);
    if (costs !== "") sections.push(VARIANT_COSTS, costs);
    const rival = betterAuthTable(rows);
    if (rival !== "") sections.push(AGAINST_BETTER_AUTH, rival);
  }
  if (imported) {
    sections.push(
      "The import, once, without load: `latchkey import gotrue` (the built server) from a GoTrue database of " +
        `seeded users, ${imported.batchSize} at a time, into a namespace of its own; its wall time from start to ` +
        "exit and its peak RSS. It has no ceiling, nor a target.",
      importTable(imported),
    );
  }
  if (soaked) {
    sections.push(
      `The clean-up soak (\`DB_CLEANUP_ENABLED\`): refreshes over sessions of its own, every token used once, at ` +
        `16 connections; then every refresh token is made 25 hours older in one statement, and refreshes go on for ` +
        `${settings.soakWindowSeconds} s while the server's clean-up takes the backlog, until only the sessions' ` +
        "tokens of the last day are left. The refresh rate while cleaning is compared with a run of the same length " +
        "just before the aging, with nothing to clean. Then refreshes at a fixed rate, half the quiet one (a server " +
        "below its limit): their latency just before the aging, and after the first window while the clean-up goes on.",
      soakTable(soaked),
    );
  }
  return `${sections.join("\n\n")}\n`;
}

const VARIANT_COSTS =
  "What each variant costs a request against its plain row of this run at the same concurrency (the two measured " +
  "minutes apart, not paired as a row and its ceiling are): the ratio of their rates, and CPU per request (the CPU " +
  "column over the rate, in µs) of the server and of PostgreSQL, the plain row's and what the variant adds. A hook " +
  "over HTTP runs in a process of the bench's own, whose CPU is in neither column; a hook function's is PostgreSQL's.";

const AGAINST_BETTER_AUTH =
  "Against Better Auth (`rivals/better-auth-server.ts`: its handler on Hono, its Kysely adapter on a `pg` pool of " +
  "the same size, argon2id at the server's cost, its rate limiter off), each row paired with Latchkey's row of this " +
  "run at the same concurrency: their rates, Latchkey's as a multiple of Better Auth's (the ratio of their ratios " +
  "to the same ceiling), and each server's CPU per request (µs).";

/** Every row under load from autocannon, each with its ceiling. */
async function measureUnderLoad(databaseUrl: string, jwtSecret: string): Promise<Row[]> {
  const floorSessions = await createFloorTables(databaseUrl);
  // Users and their sessions first: the read floor selects the same rows GET /user reads.
  const fixtures = await createUsers(databaseUrl, jwtSecret);
  const variants = new Map<string, Started>();
  const setup: Setup = { databaseUrl, jwtSecret, fixtures, refreshPool: [...fixtures.refreshTokens] };
  const measured = [...defaultScenarios(setup), ...(await startVariants(setup, variants))];

  // Every process under load is started now and sits idle while another is measured.
  const floors = await startFloors(measured, databaseUrl, fixtures);
  const measureCeiling = ceilingMeasurer(floors, floorSessions);
  const server = await startServer(databaseUrl, jwtSecret);
  const rows = await measureInRounds(measured, measureCeiling, (scenario) =>
    scenario.server ? variants.get(scenario.server)! : server,
  );
  await stop(server);
  for (const program of [...floors.values(), ...variants.values()]) await stop(program);
  return rows;
}

/** What the scenarios under load share: the database, the secret, the users and their refresh tokens. */
interface Setup {
  readonly databaseUrl: string;
  readonly jwtSecret: string;
  readonly fixtures: Fixtures;
  /** Refresh tokens shared by every refresh scenario: each request takes one and puts back the one it rotated to. */
  readonly refreshPool: string[];
}

/** Creates the users and their sessions through a server of their own, stopped once they exist. */
async function createUsers(databaseUrl: string, jwtSecret: string): Promise<Fixtures> {
  const server = await startServer(databaseUrl, jwtSecret);
  log("bench: creating users and sessions");
  const fixtures = await createFixtures(server.url, jwtSecret, {
    users: settings.users,
    refreshSessions: FLOOR_SESSIONS,
  });
  await stop(server);
  return fixtures;
}

/** The wanted scenarios on the server as an operator runs it (HS256, no tracing). */
function defaultScenarios({ fixtures, refreshPool }: Setup): Scenario[] {
  const runId = randomBytes(4).toString("hex");
  const all: Scenario[] = [
    { name: "GET /user", shape: scenarios.getUser(fixtures.accessTokens), ceiling: "read floor", target: 0.8 },
    { name: "refresh", shape: scenarios.refreshToken(refreshPool), ceiling: "rotation floor", target: 0.9 },
    { name: "password grant", shape: scenarios.passwordGrant(fixtures), ceiling: "argon2id verify", target: 0.95 },
    { name: "signup", shape: scenarios.signup(runId), ceiling: "argon2id hash", target: 0.95 },
    { name: "GET /settings", shape: scenarios.getSettings(), ceiling: "http floor" },
  ];
  return all.filter((scenario) => wanted(scenario.name));
}

/**
 * Starts a server for each variant of the server wanted, into `servers` by its name, and returns their scenarios:
 * with a key ring (RS256, ES256), what each algorithm costs a request that verifies a token, and one that signs;
 * with tracing on (TRACING_ENABLED), every span exported over OTLP to a collector that takes and drops them, what a
 * span per request, with its database children, costs; with metrics on as well (METRICS_ENABLED), pushed over OTLP
 * every 10 s, what observing everything costs.
 */
async function startVariants(setup: Setup, servers: Map<string, Started>): Promise<Scenario[]> {
  const rings = { RS256: newKeyRing("RS256"), ES256: newKeyRing("ES256") } as const;
  const measured: Scenario[] = [];
  for (const [alg, ring] of Object.entries(rings)) {
    if (!variantWanted(alg)) continue;
    const ringServer = await startServer(setup.databaseUrl, setup.jwtSecret, { AUTH_JWT_KEYS: ring });
    servers.set(alg, ringServer);
    // Its own access tokens: signed with its ring, as its clients' are.
    const accessTokens = await accessTokensFrom(ringServer.url, setup.fixtures.emails);
    measured.push(...variantScenarios(alg, accessTokens, setup.refreshPool));
  }
  const observed = {
    traced: { AUTH_TRACING_ENABLED: "true" },
    observed: { AUTH_TRACING_ENABLED: "true", AUTH_METRICS_ENABLED: "true", OTEL_METRIC_EXPORT_INTERVAL: "10000" },
  };
  for (const [server, env] of Object.entries(observed)) {
    if (!variantWanted(server)) continue;
    const collector = await startOtlpSink();
    const started = await startServer(setup.databaseUrl, setup.jwtSecret, {
      ...env,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector,
    });
    servers.set(server, started);
    measured.push(...variantScenarios(server, setup.fixtures.accessTokens, setup.refreshPool));
  }
  measured.push(...(await startHookVariants(setup, servers)));
  measured.push(...(await startBetterAuthRows(servers)));
  return measured;
}

/** Better Auth's own database, beside the bench's. */
const betterAuthDatabase = () => `${settings.database}_better_auth`;

/**
 * Better Auth's server, into `servers` as `better-auth`, when one of its rows is wanted, and its scenarios: its
 * session read against the read floor, and its email sign-in against argon2id, with no target: what they are for is
 * the comparison with Latchkey's rows (lib/better-auth.ts).
 */
async function startBetterAuthRows(servers: Map<string, Started>): Promise<Scenario[]> {
  const names = (Object.keys(BETTER_AUTH_ROWS) as BetterAuthRow[]).filter(wanted);
  if (names.length === 0) return [];
  log("bench: starting Better Auth and signing its users up");
  const server = await startBetterAuth({
    adminUrl: settings.adminUrl,
    database: betterAuthDatabase(),
    poolSize: settings.poolSize,
    cwd: work,
    entry: entryOf(here),
    nodeOptions: [...PRODUCTION_NODE_FLAGS, ...(env["BENCH_FLOOR_NODE_OPTIONS"] || "").split(" ").filter(Boolean)],
  });
  started.push(server);
  servers.set("better-auth", server);
  const fixtures = await signUpUsers(server.url, settings.users);
  const onBetterAuth = { server: "better-auth", rival: true } as const;
  const all: Scenario[] = [
    { name: "Better Auth get-session", shape: getSession(fixtures), ceiling: "read floor", ...onBetterAuth },
    { name: "Better Auth sign-in", shape: signIn(fixtures), ceiling: "argon2id verify", ...onBetterAuth },
  ];
  return all.filter((scenario) => names.includes(scenario.name as BetterAuthRow));
}

/** The custom_access_token hook's kinds: an HTTP endpoint, and a function of the database (pg-functions://). */
const HOOK_KINDS = ["http", "pg"] as const;

/**
 * Starts a server for each kind of custom_access_token hook wanted, into `servers` as `hook http` and `hook pg`, and
 * returns their scenarios: the password grant and refresh, each of which calls the hook once for its access token
 * (a refresh on a hook server also takes the session's lock: its claims are made in the rotation's transaction).
 * Over HTTP, to an endpoint in a process of its own, signed with a secret of the run; as a function, a plpgsql one
 * made in the bench's database first.
 */
async function startHookVariants(setup: Setup, servers: Map<string, Started>): Promise<Scenario[]> {
  const measured: Scenario[] = [];
  for (const kind of HOOK_KINDS) {
    const server = `hook ${kind}`;
    if (!wanted(`password grant ${server}`) && !wanted(`refresh ${server}`)) continue;
    const hook: Record<string, string> =
      kind === "http"
        ? {
            AUTH_HOOK_CUSTOM_ACCESS_TOKEN_URI: await startHookReceiver(servers),
            AUTH_HOOK_CUSTOM_ACCESS_TOKEN_SECRETS: hookSecret(),
          }
        : { AUTH_HOOK_CUSTOM_ACCESS_TOKEN_URI: await createHookFunction(setup.databaseUrl) };
    const started = await startServer(setup.databaseUrl, setup.jwtSecret, {
      AUTH_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED: "true",
      ...hook,
    });
    servers.set(server, started);
    await checkHookRan(started.url, setup.fixtures.emails[0]!);
    measured.push(...hookScenarios(server, setup));
  }
  return measured;
}

/**
 * The wanted scenarios on the hook's server `server`, against their plain rows' ceilings and with no target: what a
 * hook costs is the operator's choice, reported against the plain rows (variant-cost.ts).
 */
function hookScenarios(server: string, { fixtures, refreshPool }: Setup): Scenario[] {
  const shapes: Scenario[] = [
    {
      name: `password grant ${server}`,
      shape: scenarios.passwordGrant(fixtures),
      ceiling: "argon2id verify",
      server,
    },
    {
      name: `refresh ${server}`,
      shape: scenarios.refreshToken(refreshPool),
      ceiling: "rotation floor",
      server,
    },
  ];
  return shapes.filter((scenario) => wanted(scenario.name));
}

/** The HTTP hook's endpoint (floors/hook-receiver.ts), into `programs` to be stopped with the variants; its URI. */
async function startHookReceiver(programs: Map<string, Started>): Promise<string> {
  const port = await freePort();
  const receiver = await startProgram({
    name: "hook-receiver",
    entry: join(here, "floors", "hook-receiver.ts"),
    cwd: work,
    port,
    readyPath: "/ready",
    env: { PORT: String(port) },
  });
  started.push(receiver);
  programs.set("hook receiver", receiver);
  return `${receiver.url}/hook`;
}

/** Whether a row of the server's variant `server` is wanted: else it is not started. */
const variantWanted = (server: string) => wanted(`GET /user ${server}`) || wanted(`refresh ${server}`);

/** The wanted scenarios on the server's variant `server`: GET /user with `accessTokens`, and refresh. */
function variantScenarios(server: string, accessTokens: readonly string[], refreshPool: string[]): Scenario[] {
  const shapes: Scenario[] = [
    { name: `GET /user ${server}`, shape: scenarios.getUser(accessTokens), ceiling: "read floor", target: 0.8, server },
    {
      name: `refresh ${server}`,
      shape: scenarios.refreshToken(refreshPool),
      ceiling: "rotation floor",
      target: 0.8,
      server,
    },
  ];
  return shapes.filter((scenario) => wanted(scenario.name));
}

/** Starts each floor that a scenario of `measured` has for its ceiling, by the ceiling's name. */
async function startFloors(
  measured: readonly Scenario[],
  databaseUrl: string,
  fixtures: Fixtures,
): Promise<Map<string, Started>> {
  const floors = new Map<string, Started>();
  for (const kind of ["http", "read", "rotation"] as const) {
    if (measured.some((scenario) => scenario.ceiling === `${kind} floor`))
      floors.set(`${kind} floor`, await startFloor(kind, databaseUrl, fixtures));
  }
  return floors;
}

type MeasureCeiling = (name: string, concurrency: number) => Promise<Row>;

/** Measures a ceiling by its name: on its floor's process when it has one, else argon2id alone. */
function ceilingMeasurer(floors: ReadonlyMap<string, Started>, floorSessions: readonly string[]): MeasureCeiling {
  const ceilingShapes = new Map<string, LoadShape>([
    ["http floor", scenarios.floor()],
    ["read floor", scenarios.floor()],
    ["rotation floor", scenarios.rotationFloor(floorSessions)],
  ]);
  return (name, concurrency) => {
    const floor = floors.get(name);
    if (floor) return measure(name, floor, ceilingShapes.get(name)!, concurrency);
    return measureArgon2(name === "argon2id hash" ? "hash" : "verify", concurrency);
  };
}

/**
 * Each scenario at each concurrency, in rounds: the ceilings' rows (one per round, combined), then the scenarios'.
 * The machine's speed drifts over minutes (other tenants of the host take its CPU), so each row is measured in
 * rounds, each right after a round of its ceiling at the same concurrency, and the ratio is the median of the
 * rounds' ratios.
 */
async function measureInRounds(
  measured: readonly Scenario[],
  measureCeiling: MeasureCeiling,
  serverOf: (scenario: Scenario) => Started,
): Promise<Row[]> {
  const ceilingRows: Row[] = [];
  const scenarioRows: Row[] = [];
  for (const scenario of measured) {
    for (const concurrency of settings.concurrencies) {
      const pairs: { ceiling: Row; scenario: Row }[] = [];
      for (let round = 0; round < settings.rounds; round++) {
        const ceiling = await measureCeiling(scenario.ceiling, concurrency);
        pairs.push({
          ceiling,
          scenario: await measure(scenario.name, serverOf(scenario), scenario.shape, concurrency),
        });
      }
      ceilingRows.push(combineRounds(pairs.map((pair) => pair.ceiling)));
      const row = compareRounds(scenario.name, pairs, scenario.target);
      scenarioRows.push(scenario.rival ? { ...row, rival: true } : row);
    }
  }
  return [...ceilingRows, ...scenarioRows];
}

/** `import gotrue` with the server's production settings, into a fresh namespace of the bench's database. */
async function measureImportRow(databaseUrl: string, jwtSecret: string): Promise<ImportFigures> {
  log(`bench: ${IMPORT_ROW} of ${settings.importUsers} users, ${settings.importBatchSize} at a time`);
  const figures = await measureImport({
    adminUrl: settings.adminUrl,
    users: settings.importUsers,
    batchSize: settings.importBatchSize,
    entry: join(root, "apps", "server", "dist", "main.mjs"),
    nodeOptions: PRODUCTION_NODE_FLAGS,
    env: {
      DATABASE_URL: databaseUrl,
      AUTH_DB_DRIVER: "postgres",
      AUTH_DB_NAMESPACE: "bench_import",
      AUTH_DB_MAX_POOL_SIZE: String(settings.poolSize),
      AUTH_JWT_SECRET: jwtSecret,
    },
    cwd: work,
  });
  log(figures.summary);
  return figures;
}

/** The clean-up soak, on a server of its own with the clean-up on, into a namespace of its own. */
async function measureSoak(databaseUrl: string, jwtSecret: string): Promise<SoakFigures> {
  const server = await startServer(databaseUrl, jwtSecret, {
    AUTH_DB_NAMESPACE: "bench_soak",
    AUTH_DB_CLEANUP_ENABLED: "true",
    AUTH_DB_CLEANUP_INTERVAL: "5s",
  });
  try {
    log(`bench: ${SOAK_ROW}: signing in ${settings.soakSessions} sessions`);
    const fixtures = await createFixtures(server.url, jwtSecret, { users: 8, refreshSessions: settings.soakSessions });
    const figures = await soakCleanup({
      url: server.url,
      databaseUrl,
      namespace: "bench_soak",
      refreshTokens: fixtures.refreshTokens,
      refreshes: settings.soakRefreshes,
      connections: 16,
      windowSeconds: settings.soakWindowSeconds,
      log,
    });
    log(`bench: ${SOAK_ROW}: ${JSON.stringify(figures)}`);
    return figures;
  } finally {
    await stop(server);
  }
}

interface Scenario {
  readonly name: string;
  readonly shape: LoadShape;
  readonly ceiling: string;
  readonly target?: number;
  /** The variant's server it runs on (a key ring's algorithm, `traced`, `hook http`, `better-auth`); else the plain one. */
  readonly server?: string;
  /** Whether that server is not Latchkey (Better Auth). */
  readonly rival?: boolean;
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
async function measureArgon2(operation: "hash" | "verify", concurrency: number): Promise<Row> {
  const name = `argon2id ${operation}`;
  log(`bench: ${name} at concurrency ${concurrency}`);
  const entry = join(here, "floors", "argon2-rate.ts");
  const args = [operation, String(concurrency), String(settings.warmupSeconds), String(settings.seconds)];
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", import.meta.resolve("tsx"), entry, ...args],
    { cwd: work },
  );
  const figures = JSON.parse(stdout) as {
    perSecond: number;
    p50Ms: number;
    p99Ms: number;
    cpuPercent: number;
    peakRssMiB: number;
  };
  return {
    name,
    concurrency,
    load: {
      requestsPerSecond: figures.perSecond,
      p50Ms: figures.p50Ms,
      p99Ms: figures.p99Ms,
      completed: 0,
      failures: 0,
    },
    process: { peakRssMiB: figures.peakRssMiB, cpuPercent: figures.cpuPercent },
  };
}

/** What the README's production command passes to `node`. */
const PRODUCTION_NODE_FLAGS = ["--max-semi-space-size=8"];

async function startServer(
  databaseUrl: string,
  jwtSecret: string,
  extra: Record<string, string> = {},
): Promise<Started> {
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
      ...extra,
      // BENCH_SERVER_ENV="UV_THREADPOOL_SIZE=2 LOG_LEVEL=warn" tries other settings.
      ...Object.fromEntries(
        (env["BENCH_SERVER_ENV"] || "")
          .split(" ")
          .filter(Boolean)
          .map((pair) => pair.split("=", 2)),
      ),
    },
  });
  started.push(program);
  return program;
}

async function startFloor(
  kind: "http" | "read" | "rotation",
  databaseUrl: string,
  fixtures: Fixtures,
): Promise<Started> {
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

/** An OTLP/HTTP collector in this process that answers every export 200 and keeps nothing; its base URL. */
async function startOtlpSink(): Promise<string> {
  const sink = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "Content-Type": "application/x-protobuf" });
      res.end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  sink.unref();
  return `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
}
