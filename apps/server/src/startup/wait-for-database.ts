import type { Logger } from "pino";
import { type DatabaseTarget, describeDatabaseFailure } from "./database-failures.ts";
import { StartupFailure } from "./startup-failure.ts";

export interface WaitOptions {
  readonly ping: () => Promise<void>;
  readonly target: DatabaseTarget;
  /** DB_STARTUP_WAIT: how long the database may take to come up; 0 to try once. */
  readonly waitSeconds: number;
  readonly log: Pick<Logger, "warn" | "info">;
  readonly sleep?: (milliseconds: number) => Promise<void>;
  readonly now?: () => number;
}

const RETRY_EVERY_MS = 1_000;

/**
 * Resolves once the database answers. Containers start in any order, so a database that is not up yet is waited
 * for, up to `waitSeconds`, saying so once; anything else (a wrong password, a missing database) fails at once.
 * Throws a StartupFailure with one line saying what, where and what to do.
 */
export async function waitForDatabase(options: WaitOptions): Promise<void> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  const started = now();
  let said = false;
  for (;;) {
    try {
      await options.ping();
      if (said) options.log.info({ waited_ms: now() - started }, "the database answers");
      return;
    } catch (error) {
      const failure = describeDatabaseFailure(error, options.target);
      if (failure === undefined) throw error;
      const left = options.waitSeconds * 1000 - (now() - started);
      if (!failure.waitable || left <= 0) {
        throw new StartupFailure(
          failure.waitable && options.waitSeconds > 0
            ? `${failure.line} (waited ${options.waitSeconds} s)`
            : failure.line,
          { cause: error },
        );
      }
      if (!said) {
        options.log.warn(`${failure.line}; waiting up to ${options.waitSeconds} s for it (DB_STARTUP_WAIT)`);
        said = true;
      }
      await sleep(Math.min(RETRY_EVERY_MS, left));
    }
  }
}
