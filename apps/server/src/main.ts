import "./runtime/heap-growth.ts";
import "./runtime/thread-pool.ts";
import type { Server as HttpServer } from "node:http";
import { serve } from "@hono/node-server";
import { keysCommand } from "./cli/keys-command.ts";
import { createServer, version } from "./compose.ts";
import { type Config, ConfigError, loadConfig } from "./config/index.ts";
import { serverLimits } from "./http/server-limits.ts";
import { createLogger } from "./logging/pino-logger.ts";

const USAGE = "usage: latchkey [serve | migrate | keys …]";
/** How long in-flight requests get to finish after SIGTERM before their connections are cut. */
const DRAIN_MS = 10_000;

async function main(command: string): Promise<void> {
  if (command !== "serve" && command !== "migrate") {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exitCode = 1;
    return;
  }
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

  const server = await createServer(config, log);
  const applied = await server.postgres.migrate();
  log.info({ applied }, applied.length > 0 ? "migrations applied" : "database schema is up to date");
  if (command === "migrate") {
    await server.close();
    return;
  }
  await server.calibrateTimings();
  await server.startDelivery();

  const http = serve(
    {
      fetch: server.app.fetch,
      port: config.api.port,
      hostname: config.api.host,
      serverOptions: serverLimits(config.api),
    },
    (info) => log.info({ address: info.address, port: info.port, version }, "listening"),
  ) as HttpServer;

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down: draining in-flight requests");
    const cut = setTimeout(() => http.closeAllConnections(), DRAIN_MS);
    cut.unref();
    http.close(async () => {
      clearTimeout(cut);
      await server.close();
      log.info("stopped");
      log.flush();
    });
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
}

/** `latchkey keys …`: prints a key ring; needs no configuration and touches nothing. */
function keys(args: readonly string[]): void {
  const result = keysCommand(args, process.env);
  if (result.out !== undefined) process.stdout.write(`${result.out}\n`);
  if (result.error !== undefined) console.error(result.error);
  process.exitCode = result.exitCode;
}

const [command = "serve", ...args] = process.argv.slice(2);
if (command === "keys") keys(args);
else
  main(command).catch((error: unknown) => {
    console.error("latchkey failed to start:", error);
    process.exitCode = 1;
  });
