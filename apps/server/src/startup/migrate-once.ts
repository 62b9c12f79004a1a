import type { Logger } from "pino";
import type { DatabaseConfig } from "../config/index.ts";
import { databaseTarget, describeDatabaseFailure } from "./database-failures.ts";
import { StartupFailure } from "./startup-failure.ts";
import { waitForDatabase } from "./wait-for-database.ts";

/** Waits for the database (DB_STARTUP_WAIT), then applies what migrations are pending. */
export async function migrateOnce(
  postgres: { ping(): Promise<void>; migrate(): Promise<string[]> },
  db: DatabaseConfig["db"],
  log: Logger,
): Promise<void> {
  const target = db.url === undefined ? undefined : databaseTarget(db.url);
  if (target) await waitForDatabase({ ping: postgres.ping, target, waitSeconds: db.startupWaitSeconds, log });
  let applied: string[];
  try {
    applied = await postgres.migrate();
  } catch (error) {
    const failure = describeDatabaseFailure(error, target ?? { host: "", port: "", database: "", user: "" });
    throw failure ? new StartupFailure(failure.line, { cause: error }) : error;
  }
  log.info({ applied }, applied.length > 0 ? "migrations applied" : "database schema is up to date");
}
