import type { ClaimedMessage, DeliveryOutcome } from "@latchkey/domain";
import type { Logger } from "pino";
import { createOutageLog } from "../logging/outage-log.ts";

/**
 * Messages attempted at once by one process. A stuck attempt holds one of these (until its deadline), never the
 * queue: the others keep being claimed and sent. Each SMTP attempt has a connection of its own, so this also bounds
 * the connections open to the mail server.
 */
export const DELIVERY_CONCURRENCY = 10;
/** How long stop() goes on delivering what is in flight and what is already due. */
export const DRAIN_MILLISECONDS = 5_000;
/** Then how long the attempts it cuts off get to record their failure (one database write each). */
const ABANDON_MILLISECONDS = 1_000;

export interface OutboxWorkerOptions {
  /** Leases up to `limit` due messages to this worker. */
  readonly claim: (limit: number) => Promise<readonly ClaimedMessage[]>;
  /** Makes one attempt at a claimed message and records the outcome. */
  readonly deliver: (message: ClaimedMessage) => Promise<DeliveryOutcome>;
  /** Calls back whenever a message is queued by any instance; resolves to an unsubscribe function. */
  readonly subscribe: (onMessage: () => void) => Promise<() => Promise<void>>;
  readonly log: Logger;
  /** How often to look anyway: retries fall due without anyone writing, and a notification may be lost. */
  readonly pollMilliseconds?: number;
  /** Default DELIVERY_CONCURRENCY. */
  readonly concurrency?: number;
  /** Default DRAIN_MILLISECONDS. */
  readonly drainMilliseconds?: number;
  /** Ends the attempts still in flight when the drain runs out (the mailer's close), so they fail and are rescheduled. */
  readonly abandon?: () => Promise<void>;
}

export interface OutboxWorker {
  /**
   * Stops taking wake-ups, delivers what is in flight and what is due for at most the drain's time, then cuts off
   * what is still in flight (rescheduled by its failure) and resolves. A message whose outcome could not be recorded
   * keeps its lease, and is sent by whichever worker claims it once that runs out.
   */
  stop(): Promise<void>;
}

/**
 * Delivers queued mail and SMS as soon as they are written, in every instance; the outbox's leases make sure no two
 * workers attempt one message at once. Up to `concurrency` messages are in flight, and a freed slot is filled from
 * the queue at once, so a slow message delays nothing behind it.
 */
export async function startOutboxWorker(options: OutboxWorkerOptions): Promise<OutboxWorker> {
  const { log } = options;
  // A database away fails every poll's claim: one line when that starts, one when claims work again.
  const claims = createOutageLog(log, {
    fields: { component: "outbox" },
    downMessage: "outbox: due messages cannot be claimed; delivery resumes when the database answers",
    upMessage: (downFor) => `outbox: claiming due messages again after ${downFor}`,
  });
  const concurrency = options.concurrency ?? DELIVERY_CONCURRENCY;
  const inFlight = new Set<Promise<void>>();
  let claiming = false;
  let claimsAllowed = true;
  // Something may be due: a wake-up came, or the last claim was full and may have left more behind.
  let wanted = false;
  // Told of every change, by whoever waits for the worker to settle.
  let changed = () => {};

  const attempt = (message: ClaimedMessage) => {
    const running = options
      .deliver(message)
      .then(
        (outcome) => report(message, outcome),
        (error: unknown) =>
          log.error(
            { err: error, channel: message.entry.channel, message_id: message.entry.id },
            "message delivery could not be recorded; it is sent again once its lease runs out",
          ),
      )
      .finally(() => {
        inFlight.delete(running);
        pump();
      });
    inFlight.add(running);
  };

  // A delivery is logged where the domain reports it (logging/delivery-log.ts), as are codes texted at once.
  // security: what a message is and its outbox id (a mail's Message-ID), never whom it is for or what it says.
  const report = ({ entry }: ClaimedMessage, outcome: DeliveryOutcome) => {
    if (outcome.outcome === "delivered") return;
    const fields = { channel: entry.channel, kind: outcome.message?.kind ?? null, message_id: entry.id };
    log.warn({ ...fields, error: outcome.error, will_retry: outcome.willRetry }, "message delivery failed");
  };

  const claimMore = async () => {
    claiming = true;
    wanted = false;
    const room = concurrency - inFlight.size;
    try {
      const claimed = await options.claim(room);
      claims.up();
      if (claimed.length === room) wanted = true;
      for (const message of claimed) attempt(message);
    } catch (error) {
      // The next poll tries again: no faster, while the database is away.
      wanted = false;
      claims.down(error);
    } finally {
      claiming = false;
    }
    pump();
  };

  const pump = () => {
    if (claimsAllowed && wanted && !claiming && inFlight.size < concurrency) void claimMore();
    changed();
  };

  const wake = () => {
    wanted = true;
    pump();
  };

  /** Resolves once `done` holds (checked at every change), or after `ms`. */
  const settle = (done: () => boolean, ms: number) =>
    new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        changed = () => {};
        resolve();
      };
      const timer = setTimeout(finish, ms);
      changed = () => {
        if (done()) finish();
      };
      changed();
    });

  const unsubscribe = await options.subscribe(wake);
  const poll = setInterval(wake, options.pollMilliseconds ?? 1000);
  poll.unref();
  wake(); // what was queued while no worker was running

  return {
    async stop() {
      clearInterval(poll);
      await unsubscribe();
      // Whatever is due now goes out too, within the drain.
      wake();
      await settle(() => inFlight.size === 0 && !claiming && !wanted, options.drainMilliseconds ?? DRAIN_MILLISECONDS);
      claimsAllowed = false;
      if (inFlight.size === 0 && !claiming) return;
      await options.abandon?.();
      await settle(() => inFlight.size === 0 && !claiming, ABANDON_MILLISECONDS);
      if (inFlight.size > 0) log.warn({ in_flight: inFlight.size }, "stopped with messages in flight");
    },
  };
}
