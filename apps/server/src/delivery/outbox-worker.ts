import { type ClaimedMessage, type DeliveryOutcome, OUTBOX_RENEWAL_SECONDS } from "@latchkey/domain";
import type { Logger } from "pino";
import { createOutageLog, type OutageLog } from "../logging/outage-log.ts";

/**
 * Messages attempted at once by one process. A stuck attempt holds one of these (until its deadline), never the
 * queue: the others keep being claimed and sent. Each SMTP attempt has a connection of its own, so this also bounds
 * the connections open to the mail server.
 */
const DELIVERY_CONCURRENCY = 10;
/** How long stop() goes on delivering what is in flight and what is already due. */
const DRAIN_MILLISECONDS = 5_000;
/** Then how long the attempts it cuts off get to record their failure (one database write each). */
const ABANDON_MILLISECONDS = 1_000;

export interface OutboxWorkerOptions {
  /** Leases up to `limit` due messages to this worker. */
  readonly claim: (limit: number) => Promise<readonly ClaimedMessage[]>;
  /** Makes one attempt at a claimed message and records the outcome. */
  readonly deliver: (message: ClaimedMessage) => Promise<DeliveryOutcome>;
  /** Extends the leases of the messages still in flight; resolves to the ids whose lease it extended. */
  readonly renew: (held: readonly ClaimedMessage[]) => Promise<readonly string[]>;
  /** Calls back whenever a message is queued by any instance; resolves to an unsubscribe function. */
  readonly subscribe: (onMessage: () => void) => Promise<() => Promise<void>>;
  readonly log: Logger;
  /** How often to look anyway: retries fall due without anyone writing, and a notification may be lost. */
  readonly pollMilliseconds?: number;
  /** How often to renew the leases of what is in flight; default OUTBOX_RENEWAL_SECONDS. */
  readonly renewMilliseconds?: number;
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
   * keeps its lease until that runs out (OUTBOX_LEASE_SECONDS), and is sent by whichever worker claims it then.
   */
  stop(): Promise<void>;
}

/**
 * Delivers queued mail and SMS as soon as they are written, in every instance; the outbox's leases make sure no two
 * workers attempt one message at once. Up to `concurrency` messages are in flight, and a freed slot is filled from
 * the queue at once, so a slow message delays nothing behind it. The leases of what is in flight are renewed while
 * it is, so they can be short: a worker that dies holds its messages only until they run out.
 */
export async function startOutboxWorker(options: OutboxWorkerOptions): Promise<OutboxWorker> {
  const { log } = options;
  const outages = outboxOutageLogs(log);
  const changes = createChangeWatch();
  const dispatch = createDispatch(options, outages.claims, changes.changed);
  const leases = createLeaseRenewal(options, outages.renewals, dispatch.inFlight);

  const unsubscribe = await options.subscribe(dispatch.wake);
  const poll = setInterval(dispatch.wake, options.pollMilliseconds ?? 1000);
  poll.unref();
  const heartbeat = setInterval(leases.renew, options.renewMilliseconds ?? OUTBOX_RENEWAL_SECONDS * 1000);
  heartbeat.unref();
  dispatch.wake(); // what was queued while no worker was running

  return {
    async stop() {
      clearInterval(poll);
      await unsubscribe();
      // Whatever is due now goes out too, within the drain, leases still renewed.
      dispatch.wake();
      await changes.settle(dispatch.isDrained, options.drainMilliseconds ?? DRAIN_MILLISECONDS);
      dispatch.stopClaiming();
      try {
        if (dispatch.isIdle()) return;
        await options.abandon?.();
        await changes.settle(dispatch.isIdle, ABANDON_MILLISECONDS);
        if (dispatch.inFlight.size > 0)
          log.warn({ in_flight: dispatch.inFlight.size }, "stopped with messages in flight");
      } finally {
        // Nothing of the worker's left running once the database closes.
        clearInterval(heartbeat);
        await leases.running();
      }
    },
  };
}

/** A database away fails every poll's claim, and every renewal: one line when that starts, one when they work again. */
function outboxOutageLogs(log: Logger): { claims: OutageLog; renewals: OutageLog } {
  return {
    claims: createOutageLog(log, {
      fields: { component: "outbox" },
      downMessage: "outbox: due messages cannot be claimed; delivery resumes when the database answers",
      upMessage: (downFor) => `outbox: claiming due messages again after ${downFor}`,
    }),
    renewals: createOutageLog(log, {
      fields: { component: "outbox" },
      downMessage:
        "outbox: leases of messages being sent cannot be renewed; others may send them again once they run out",
      upMessage: (downFor) => `outbox: renewing leases again after ${downFor}`,
    }),
  };
}

/** Lets stop() wait for the worker to settle: told of every change, it checks the condition waited for. */
function createChangeWatch(): {
  changed(): void;
  /** Resolves once `done` holds (checked at every change), or after `ms`. */
  settle(done: () => boolean, ms: number): Promise<void>;
} {
  let changed = () => {};
  return {
    changed: () => changed(),
    settle: (done, ms) =>
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
      }),
  };
}

/** The claim-and-attempt loop: a freed slot is filled from the queue whenever something may be due. */
interface Dispatch {
  /** Each attempt running, with the message it holds. */
  readonly inFlight: ReadonlyMap<Promise<void>, ClaimedMessage>;
  /** Something may be due: claims if there is room. */
  wake(): void;
  /** No attempt running and no claim under way. */
  isIdle(): boolean;
  /** Idle, and nothing left that may be due. */
  isDrained(): boolean;
  /** Claims nothing more, whatever wakes it. */
  stopClaiming(): void;
}

function createDispatch(options: OutboxWorkerOptions, claims: OutageLog, changed: () => void): Dispatch {
  const concurrency = options.concurrency ?? DELIVERY_CONCURRENCY;
  const inFlight = new Map<Promise<void>, ClaimedMessage>();
  let claiming = false;
  let claimsAllowed = true;
  // Something may be due: a wake-up came, or the last claim was full and may have left more behind.
  let wanted = false;

  const attempt = (message: ClaimedMessage) => {
    const running = deliverOne(options, message).finally(() => {
      inFlight.delete(running);
      pump();
    });
    inFlight.set(running, message);
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

  const isIdle = () => inFlight.size === 0 && !claiming;
  return {
    inFlight,
    wake: () => {
      wanted = true;
      pump();
    },
    isIdle,
    isDrained: () => isIdle() && !wanted,
    stopClaiming: () => {
      claimsAllowed = false;
    },
  };
}

/** One attempt at a message, its failure logged; settles once the outcome is recorded, or could not be. */
function deliverOne(options: OutboxWorkerOptions, message: ClaimedMessage): Promise<void> {
  return options.deliver(message).then(
    (outcome) => report(options.log, message, outcome),
    (error: unknown) =>
      options.log.error(
        { err: error, channel: message.entry.channel, message_id: message.entry.id },
        "message delivery could not be recorded; it is sent again once its lease runs out",
      ),
  );
}

// A delivery is logged where the domain reports it (logging/delivery-log.ts), as are codes texted at once.
// security: what a message is and its outbox id (a mail's Message-ID), never whom it is for or what it says.
function report(log: Logger, { entry }: ClaimedMessage, outcome: DeliveryOutcome): void {
  if (outcome.outcome === "delivered") return;
  const fields = { channel: entry.channel, kind: outcome.message?.kind ?? null, message_id: entry.id };
  log.warn({ ...fields, error: outcome.error, will_retry: outcome.willRetry }, "message delivery failed");
}

/** One renewal at a time, for everything in flight when it starts but what has lost its lease already. */
function createLeaseRenewal(
  options: OutboxWorkerOptions,
  renewals: OutageLog,
  inFlight: ReadonlyMap<Promise<void>, ClaimedMessage>,
): { renew(): void; running(): Promise<void> | undefined } {
  const { log } = options;
  let renewing: Promise<void> | undefined;
  const overtaken = new WeakSet<ClaimedMessage>();
  const renew = () => {
    const held = [...inFlight.values()].filter((message) => !overtaken.has(message));
    if (renewing || held.length === 0) return;
    renewing = options
      .renew(held)
      .then(
        (renewed) => {
          renewals.up();
          const kept = new Set(renewed);
          // An attempt that ended meanwhile gave its lease back; one still running has lost it, for good.
          const lost = held.filter(
            (message) => !kept.has(message.entry.id) && [...inFlight.values()].includes(message),
          );
          for (const message of lost) overtaken.add(message);
          if (lost.length > 0)
            log.warn(
              { component: "outbox", message_ids: lost.map((message) => message.entry.id) },
              "outbox: the lease ran out on messages still being sent; another worker may send them again",
            );
        },
        (error: unknown) => renewals.down(error),
      )
      .finally(() => {
        renewing = undefined;
      });
  };
  return { renew, running: () => renewing };
}
