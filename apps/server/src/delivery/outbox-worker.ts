import type { DeliveryReport } from "@latchkey/domain";
import type { Logger } from "pino";

export interface OutboxWorkerOptions {
  /** Delivers one batch of due messages. */
  readonly deliver: () => Promise<DeliveryReport>;
  /** Calls back whenever a message is queued by any instance; resolves to an unsubscribe function. */
  readonly subscribe: (onMessage: () => void) => Promise<() => Promise<void>>;
  readonly log: Logger;
  /** How often to look anyway: retries fall due without anyone writing, and a notification may be lost. */
  readonly pollMilliseconds?: number;
}

export interface OutboxWorker {
  /** Lets the current batch finish, then stops. */
  stop(): Promise<void>;
}

/**
 * Delivers queued mail and SMS as soon as they are written, in every instance; the outbox's claims make sure each
 * message goes out once however many instances run. One delivery run at a time per process: a wake-up that comes
 * during a run makes it go round once more.
 */
export async function startOutboxWorker(options: OutboxWorkerOptions): Promise<OutboxWorker> {
  const { log } = options;
  let stopped = false;
  let wanted = false;
  let current: Promise<void> | undefined;

  const runOnce = async () => {
    do {
      wanted = false;
      const report = await options.deliver();
      for (const failure of report.failures) {
        log.warn(
          { message_id: failure.id, error: failure.error, will_retry: failure.willRetry },
          "message delivery failed",
        );
      }
      if (report.delivered > 0) log.debug({ delivered: report.delivered }, "messages delivered");
      // A batch that came back full may have left more behind.
      if (report.claimed > report.failures.length && report.claimed > 0) wanted = true;
    } while (wanted && !stopped);
  };

  const wake = () => {
    if (stopped) return;
    if (current) {
      wanted = true;
      return;
    }
    current = runOnce()
      .catch((error: unknown) => log.error({ err: error }, "message delivery run failed"))
      .finally(() => {
        current = undefined;
      });
  };

  const unsubscribe = await options.subscribe(wake);
  const poll = setInterval(wake, options.pollMilliseconds ?? 1000);
  poll.unref();
  wake(); // what was queued while no worker was running

  return {
    async stop() {
      stopped = true;
      clearInterval(poll);
      await unsubscribe();
      await current;
    },
  };
}
