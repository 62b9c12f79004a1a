import type { CleanUpPass } from "@latchkey/domain";
import type { Logger } from "pino";
import { createOutageLog } from "../logging/outage-log.ts";

export interface CleanupWorkerOptions {
  /** One pass of the clean-up (the domain's cleanUpStaleRows), which asks `stopping` before each statement. */
  readonly pass: (stopping: () => boolean) => Promise<CleanUpPass>;
  /** DB_CLEANUP_INTERVAL: the wait after a pass that found no more than it could take. */
  readonly intervalMs: number;
  readonly log: Logger;
  /** The first pass's delay; by default a random part of the interval, so that instances started together spread. */
  readonly firstDelayMs?: number;
}

export interface CleanupWorker {
  /** Runs no more passes, ends the one under way before its next statement, and resolves once it has ended. */
  stop(): Promise<void>;
}

/**
 * DB_CLEANUP_ENABLED: passes of the clean-up, one at a time, every interval, in every instance (the statements skip
 * what another holds, so instances share the work). A pass that stopped with rows left is followed at once, so the
 * clean-up keeps up with any rate of refreshes; each statement stays small either way. A database away fails the
 * pass: one line when that starts, one when passes work again.
 */
export function startCleanupWorker(options: CleanupWorkerOptions): CleanupWorker {
  const { log } = options;
  const outage = createOutageLog(log, {
    fields: { component: "cleanup" },
    downMessage: "cleanup: stale rows cannot be deleted; the clean-up goes on when the database answers",
    upMessage: (downFor) => `cleanup: deleting stale rows again after ${downFor}`,
  });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = runPass();
    }, ms);
    timer.unref();
  };
  const runPass = async () => {
    let more = false;
    try {
      const pass = await options.pass(() => stopped);
      outage.up();
      more = pass.more;
      if (Object.keys(pass.deleted).length > 0) log.debug({ deleted: pass.deleted }, "cleanup: stale rows deleted");
    } catch (error) {
      outage.down(error);
    }
    schedule(more ? 0 : options.intervalMs);
  };

  schedule(options.firstDelayMs ?? Math.floor(Math.random() * options.intervalMs));
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
