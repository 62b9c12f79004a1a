import "./runtime/heap-growth.ts";
import "./runtime/thread-pool.ts";
import type { Server as HttpServer } from "node:http";
import { serve } from "@hono/node-server";
import { EmbeddedDatabaseInUseError } from "@latchkey/adapters-postgres";
import { type Logger, pino } from "pino";
import { clientKeys } from "./cli/client-keys.ts";
import { runConfigCommand } from "./cli/config-command.ts";
import { helpText } from "./cli/help.ts";
import { importCommand, parseImportArguments } from "./cli/import-command.ts";
import { keysCommand } from "./cli/keys-command.ts";
import { asksForHelp, type Command, isCommand, unexpectedArgument, usageLine } from "./cli/usage-errors.ts";
import { createServer, type Server, version } from "./compose.ts";
import {
  type Config,
  ConfigError,
  type ConfigSources,
  effectiveSettings,
  loadConfig,
  loadDatabaseConfig,
  loadImportConfig,
} from "./config/index.ts";
import { connectionDrain } from "./http/connection-drain.ts";
import { serverLimits } from "./http/server-limits.ts";
import { createLogger } from "./logging/pino-logger.ts";
import { listenFailure } from "./startup/listen-failure.ts";
import { migrateOnce } from "./startup/migrate-once.ts";
import { openDatabase } from "./startup/open-database.ts";
import { StartupFailure } from "./startup/startup-failure.ts";

/** The configuration, or undefined once its problems are printed. */
function configured<T>(load: () => T): T | undefined {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exitCode = 1;
    return undefined;
  }
}

/** `latchkey migrate`: needs the database settings alone, so it can run before the rest is configured. */
async function migrate(): Promise<void> {
  const config = configured(() => loadDatabaseConfig());
  if (!config) return;
  const log = createLogger(config.log);
  await failingClearly(log, config.log.file, async () => {
    const postgres = await openDatabase(config.db);
    try {
      await migrateOnce(postgres, config.db, log);
    } finally {
      await postgres.close();
    }
  });
}

async function serveCommand(): Promise<void> {
  const sources: ConfigSources = { env: process.env, cwd: process.cwd() };
  const config = configured(() => loadConfig(sources));
  if (!config) return;
  // What GET /admin/settings lists, read from the same sources, secrets redacted (as `latchkey config` shows them).
  const settings = configured(() => effectiveSettings(sources));
  if (!settings) return;
  const log = createLogger(config.log);
  for (const warning of config.warnings) log.warn(warning);
  if (config.profile === "development") {
    log.warn(
      { data: config.db.embeddedDataDir },
      "development profile: embedded PostgreSQL, a generated JWT secret and RS256 signing key, mail and SMS written to this log; set DATABASE_URL (and the required AUTH_ settings) for production",
    );
  } else if (config.signup.phoneEnabled && !config.sms.provider) {
    // Supabase's own docker setup enables phone signups with autoconfirm and no provider, so this starts, and says.
    log.warn(
      "EXTERNAL_PHONE_ENABLED without SMS_PROVIDER: requests that text a code fail (500 Unable to get SMS provider), but for SMS_TEST_OTP numbers",
    );
  }
  await failingClearly(log, config.log.file, async () => {
    const server = await createServer(config, log, { settings });
    try {
      await migrateOnce(server.postgres, config.db, log);
      await server.calibrateTimings();
      await server.startWorkers();
      await listen(server, config, log);
    } catch (error) {
      await server.close();
      throw error;
    }
    if (config.profile === "development") await sayDevelopmentKeys(config, log);
  });
}

/**
 * Listens, then stops gracefully on SIGTERM or SIGINT: answers every request that reached it, within
 * API_SHUTDOWN_DRAIN (connection-drain.ts), then sends the mail queued. A port that cannot be had is a StartupFailure.
 */
async function listen(server: Server, config: Config, log: Logger): Promise<void> {
  const http = await new Promise<HttpServer>((resolve, reject) => {
    const started = serve(
      {
        fetch: server.app.fetch,
        port: config.api.port,
        hostname: config.api.host,
        serverOptions: serverLimits(config.api),
      },
      (info) => {
        log.info({ address: info.address, port: info.port, version }, "listening");
        resolve(started);
      },
    ) as HttpServer;
    started.once("error", (error) => reject(listenFailure(error, config.api) ?? error));
  });

  const drainMs = config.api.shutdownDrainSeconds * 1000;
  const connections = connectionDrain(http, { drainMs });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.startDraining();
    log.info(
      { signal, drain_ms: drainMs },
      "shutting down: answering the requests that arrive, with Connection: close",
    );
    const { cut } = await connections.drain();
    if (cut > 0) log.warn({ connections: cut }, "shutdown drain over (API_SHUTDOWN_DRAIN): connections still open cut");
    await server.close();
    log.info("stopped");
    log.flush();
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}

/** What a developer gives `createClient` (`latchkey keys` prints the same for any configuration). */
async function sayDevelopmentKeys(config: Config, log: Logger): Promise<void> {
  const keys = await clientKeys({ profile: config.profile, externalUrl: config.api.externalUrl, jwt: config.jwt });
  log.info(
    { url: keys.url, anon_key: keys.anonKey, service_role_key: keys.serviceRoleKey },
    "for supabase-js: createClient(url, anon_key); admin calls take service_role_key (development only: `latchkey keys` prints them for any configuration)",
  );
}

/**
 * Runs the start; a StartupFailure (or a second server on one embedded database) is printed as its one line on stderr (and in LOG_FILE, whose log would end
 * without a word otherwise), with exit code 1. Anything else is a bug, shown whole.
 */
async function failingClearly(log: Logger, logFile: string | undefined, start: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (error) {
    // The embedded database's lock says it in one line already.
    if (!(error instanceof StartupFailure || error instanceof EmbeddedDatabaseInUseError)) throw error;
    if (logFile !== undefined) {
      log.fatal(error.message);
      log.flush();
    }
    console.error(`latchkey: ${error.message}`);
    process.exitCode = 1;
  }
}

/** `latchkey keys …`: prints the client keys, or a key ring; touches nothing but a development secret's first creation. */
async function keys(args: readonly string[]): Promise<void> {
  const result = await keysCommand(args, { env: process.env, cwd: process.cwd() });
  if (result.out !== undefined) process.stdout.write(`${result.out}\n`);
  if (result.error !== undefined) console.error(result.error);
  process.exitCode = result.exitCode;
}

/** `latchkey import gotrue …`: progress on stderr, the summary on stdout. */
async function importFrom(args: readonly string[]): Promise<void> {
  const parsed = parseImportArguments(args);
  if (typeof parsed === "string") {
    return refuse(parsed, "import");
  }
  const config = configured(() => loadImportConfig());
  if (!config) return;
  // The log (migrations, waiting for the database) goes to stderr with the progress; stdout is the summary's.
  const log = createLogger({
    ...config.log,
    destination: config.log.file === undefined ? pino.destination(2) : undefined,
  });
  const terminal = process.stderr.isTTY === true;
  let lastLine = 0;
  await failingClearly(log, config.log.file, () =>
    importCommand(parsed, config, log, {
      out: (text) => {
        if (terminal) process.stderr.write("\n");
        process.stdout.write(`${text}\n`);
      },
      progress: (line) => {
        if (terminal) process.stderr.write(`\r${line}\u001b[K`);
        else if (Date.now() - lastLine >= 5_000) {
          lastLine = Date.now();
          process.stderr.write(`${line}\n`);
        }
      },
    }),
  );
}

/** A wrong call: one line on stderr, exit code 2. */
function refuse(problem: string, command?: Command): void {
  console.error(usageLine(problem, command));
  process.exitCode = 2;
}

/** `latchkey help [COMMAND]`, `--help`, `-h`: on stdout, exit code 0. */
function help(command?: string): void {
  if (command === undefined || isCommand(command)) process.stdout.write(`${helpText(command)}\n`);
  else refuse(`unknown command ${command}`);
}

async function run(command: string, args: readonly string[]): Promise<void> {
  if (command === "help" || command === "--help" || command === "-h") return help(args[0]);
  if (!isCommand(command))
    return refuse(`${command.startsWith("-") ? "unknown option" : "unknown command"} ${command}`);
  if (asksForHelp(args)) return help(command);
  if (command === "keys") return keys(args);
  if (command === "import") return importFrom(args);
  // The other commands take no arguments.
  if (args[0] !== undefined) return refuse(unexpectedArgument(args[0], command), command);
  if (command === "config") return runConfigCommand();
  if (command === "migrate") return migrate();
  if (command === "serve") return serveCommand();
  refuse(`unknown command ${command}`);
}

const [command = "serve", ...args] = process.argv.slice(2);
run(command, args).catch((error: unknown) => {
  console.error("latchkey failed to start:", error);
  process.exitCode = 1;
});
