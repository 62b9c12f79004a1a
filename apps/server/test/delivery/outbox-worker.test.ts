import { createSmtpMailer, type SmtpMailerOptions } from "@latchkey/adapters-smtp";
import { type SmtpSink, type SmtpSinkOptions, startSmtpSink } from "@latchkey/adapters-smtp/testing";
import { type Clock, OUTBOX_LEASE_SECONDS, OUTBOX_RENEWAL_SECONDS, type OutboxStore } from "@latchkey/domain";
import { context, createTestAuth } from "@latchkey/domain/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type OutboxWorkerOptions, startOutboxWorker } from "../../src/delivery/outbox-worker.ts";
import { deliveryLog } from "../../src/logging/delivery-log.ts";
import { capturedLog } from "../support/captured-log.ts";

const password = "correct horse battery";

/** Real time, plus a shift a test can add; sleeping (the domain's waits between marks) shifts instead of waiting. */
class ShiftedClock implements Clock {
  shift = 0;
  now(): Date {
    return new Date(Date.now() + this.shift);
  }
  async sleep(milliseconds: number): Promise<void> {
    this.shift += Math.max(0, milliseconds);
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  readonly sink?: SmtpSinkOptions;
  readonly smtp?: Partial<SmtpMailerOptions>;
  readonly worker?: Partial<OutboxWorkerOptions>;
  /** Wraps the outbox the domain uses. */
  readonly outbox?: (outbox: OutboxStore) => OutboxStore;
}

/**
 * The domain on in-memory stores, a real SMTP mailer and sink, and the worker between them, as the server wires them.
 * Sign-ups queue a confirmation each and notify the worker, as a committed transaction does.
 */
async function startDelivery(setup: Setup = {}) {
  const sink: SmtpSink = await startSmtpSink(setup.sink);
  cleanups.push(() => sink.close());
  const mailer = createSmtpMailer({
    host: "127.0.0.1",
    port: sink.port,
    adminEmail: "no-reply@latchkey.example",
    externalUrl: "https://auth.example.com/auth/v1",
    siteUrl: "https://app.example.com",
    ...setup.smtp,
  });
  cleanups.push(() => mailer.close());
  const { log, lines } = capturedLog();
  const clock = new ShiftedClock();
  const base = createTestAuth({ ports: { clock } });
  const { auth, stores } = createTestAuth({
    ports: {
      clock,
      mailer,
      // As the server wires it: deliveries are logged where the domain reports them.
      events: deliveryLog(log),
      tx: base.ports.tx,
      stores: { ...base.stores, outbox: setup.outbox?.(base.stores.outbox) ?? base.stores.outbox },
    },
  });
  let notify = () => {};
  let inFlight = 0;
  let mostInFlight = 0;
  let renewals = 0;
  const worker = await startOutboxWorker({
    claim: (limit) => auth.claimDueMessages({ limit }),
    deliver: async (message) => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        return await auth.deliverClaimedMessage(message);
      } finally {
        inFlight -= 1;
      }
    },
    renew: async (held) => {
      renewals += 1;
      return auth.renewClaims(held);
    },
    subscribe: async (onMessage) => {
      notify = onMessage;
      return async () => {};
    },
    log,
    pollMilliseconds: 100,
    // Short, so that tests leaving attempts stuck end quickly.
    drainMilliseconds: 300,
    abandon: () => mailer.close(),
    ...setup.worker,
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await worker.stop();
  };
  cleanups.push(stop);
  return {
    sink,
    clock,
    stores,
    stop,
    mostInFlight: () => mostInFlight,
    /** How many times the worker renewed the leases of what it had in flight. */
    renewals: () => renewals,
    /** Another worker's claim, now. */
    claimElsewhere: () => auth.claimDueMessages({ limit: 10 }),
    logLines: () => lines,
    /** The outbox ids of the failed attempts the worker reported, in order. */
    failedIds: () =>
      lines.filter((line) => line.msg === "message delivery failed").map((line) => String(line.message_id)),
    signUp: async (email: string, options: { notify?: boolean } = {}) => {
      await auth.signUp({ email, password, context });
      if (options.notify !== false) notify();
    },
    /** What the outbox keeps of a message. */
    readOutbox: base.readOutbox,
    /** How many messages are still to deliver. */
    pending: async () => (await stores.outbox.pending()).reduce((sum, backlog) => sum + backlog.count, 0),
  };
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe("the outbox worker", () => {
  it("delivers everyone else's mail within 2 s while five recipients' servers never answer", async () => {
    const stuck = Array.from({ length: 5 }, (_, n) => `stuck-${n}@example.com`);
    // Default SMTP timeouts: the stuck attempts are held for the whole test.
    const world = await startDelivery({
      sink: { stallData: (recipients) => recipients.some((address) => stuck.includes(address)) },
    });
    for (const address of stuck) await world.signUp(address);
    await sleep(500);

    const others = Array.from({ length: 20 }, (_, n) => `waiting-${n}@example.com`);
    const delays = await Promise.all(
      others.map(async (address, n) => {
        await sleep(n * 50);
        await world.signUp(address);
        const queued = Date.now();
        const mail = await world.sink.waitFor(address, undefined, 10_000);
        return mail.receivedAt - queued;
      }),
    );
    expect(Math.max(...delays)).toBeLessThan(2_000);
    for (const address of stuck) expect(world.sink.to(address)).toEqual([]);
    expect(world.mostInFlight()).toBeLessThanOrEqual(10);
  }, 30_000);

  it("fails attempts on a stalled server at their deadline, retries them, holds no more than the bound, and delivers once it answers", async () => {
    let stalled = true;
    let connections = 0;
    const world = await startDelivery({
      sink: {
        stallGreeting: () => {
          connections += 1;
          return stalled;
        },
      },
      smtp: { greetingTimeoutMs: 300, attemptTimeoutMs: 1_000 },
      worker: { concurrency: 4 },
    });
    const addresses = Array.from({ length: 6 }, (_, n) => `patient-${n}@example.com`);
    for (const address of addresses) await world.signUp(address);

    // Each first attempt fails at 0.3 s, its retry comes 2 s later and fails too (the next comes 4 s after that).
    const failedTwice = () => {
      const ids = world.failedIds();
      return new Set(ids).size === 6 && ids.every((id) => ids.indexOf(id) !== ids.lastIndexOf(id));
    };
    for (const started = Date.now(); !failedTwice() && Date.now() - started < 8_000; ) await sleep(100);
    const failed = [...new Set(world.failedIds())];
    expect(failed).toHaveLength(6);
    for (const id of failed) {
      const entry = await world.readOutbox(id);
      expect(entry?.attempts).toBeGreaterThanOrEqual(2);
      expect(entry?.lastError).toContain("Greeting never received");
    }
    expect(connections).toBeGreaterThanOrEqual(12);
    expect(world.mostInFlight()).toBeLessThanOrEqual(4);
    expect(world.sink.messages).toEqual([]);

    stalled = false;
    for (const address of addresses) await world.sink.waitFor(address, undefined, 10_000);
    await sleep(300);
    expect(world.sink.messages.map((mail) => mail.to).sort()).toEqual([...addresses].sort());
  }, 30_000);

  it("sends a retry under the Message-ID of the failed attempt, and each message under its own", async () => {
    const seen = new Set<string>();
    const world = await startDelivery({
      // The first attempt at each mail gets no answer to its content.
      sink: { stallData: ([to]) => !seen.has(to!) && Boolean(seen.add(to!)) },
      smtp: { commandTimeoutMs: 300 },
    });
    await world.signUp("retried@example.com");
    await world.signUp("other@example.com");
    const retried = await world.sink.waitFor("retried@example.com", undefined, 10_000);
    const other = await world.sink.waitFor("other@example.com", undefined, 10_000);

    const failed = world.failedIds();
    expect(failed).toHaveLength(2);
    expect(failed.map((id) => `<${id}@latchkey.example>`)).toContain(retried.parsed.messageId);
    expect(failed.map((id) => `<${id}@latchkey.example>`)).toContain(other.parsed.messageId);
    expect(other.parsed.messageId).not.toBe(retried.parsed.messageId);
  }, 20_000);

  it("logs a delivered mail at info by its kind and Message-ID, and a failed attempt alike, never whom it is for", async () => {
    const world = await startDelivery({
      // The first attempt gets no answer to its content; the retry is delivered.
      sink: { stallData: () => world.failedIds().length === 0 },
      smtp: { commandTimeoutMs: 300 },
    });
    await world.signUp("logged@example.com");
    const mail = await world.sink.waitFor("logged@example.com", undefined, 10_000);
    const delivered = () => world.logLines().filter((line) => line.msg === "message delivered");
    await expect.poll(delivered).toHaveLength(1);

    const [id] = world.failedIds();
    expect(`<${id}@latchkey.example>`).toBe(mail.parsed.messageId);
    expect(delivered()[0]).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: expect.any(Number),
      hostname: expect.any(String),
      msg: "message delivered",
      channel: "email",
      kind: "confirmation",
      message_id: id,
    });
    expect(world.logLines().find((line) => line.msg === "message delivery failed")).toMatchObject({
      level: 40,
      channel: "email",
      kind: "confirmation",
      message_id: id,
      will_retry: true,
    });
    const written = JSON.stringify(world.logLines());
    expect(mail.link).toBeDefined();
    for (const secret of ["logged@example.com", mail.link!, new URL(mail.link!).searchParams.get("token")!])
      expect(written).not.toContain(secret);
  }, 20_000);

  it("sends a mail again under the same Message-ID when its delivery could not be recorded", async () => {
    let databaseLost = true;
    const world = await startDelivery({
      outbox: (outbox) => ({
        ...outbox,
        markDelivered: async (held, at) => {
          if (databaseLost) throw new Error("connection terminated unexpectedly");
          return outbox.markDelivered(held, at);
        },
      }),
    });
    await world.signUp("twice@example.com");
    await world.signUp("also-twice@example.com");
    await world.sink.received(2);
    await sleep(300);

    // The database comes back; the leases run out, and both are sent again.
    databaseLost = false;
    world.clock.shift += (OUTBOX_LEASE_SECONDS + 1) * 1000;
    await world.sink.received(4);
    await sleep(300);
    const ids = (to: string) => world.sink.to(to).map((mail) => mail.parsed.messageId);
    expect(ids("twice@example.com")).toHaveLength(2);
    expect(new Set(ids("twice@example.com")).size).toBe(1);
    expect(new Set(ids("also-twice@example.com")).size).toBe(1);
    expect(ids("also-twice@example.com")[0]).not.toBe(ids("twice@example.com")[0]);
    // Recorded this time: no third copy.
    expect(await world.pending()).toBe(0);
  }, 20_000);

  it("says once that claims fail while the database is away, and once that they work again", async () => {
    let away = true;
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const world = await startDelivery({
      outbox: (outbox) => ({
        ...outbox,
        claimDue: (options) => (away ? Promise.reject(refused) : outbox.claimDue(options)),
      }),
    });
    await world.signUp("waiting@example.com");
    // Several polls (every 100 ms here) fail meanwhile.
    await sleep(600);
    const outboxLines = () => world.logLines().filter((line) => line["component"] === "outbox");
    expect(outboxLines()).toMatchObject([{ level: 40, code: "ECONNREFUSED" }]);
    expect(outboxLines()[0]).not.toHaveProperty("err");
    away = false;
    await world.sink.waitFor("waiting@example.com");
    expect(outboxLines().map((line) => line["level"])).toEqual([40, 30]);
  });

  it("delivers on stop what is already due, within the drain", async () => {
    // No wake-ups but the first: only the stop's drain can deliver what is queued after it.
    const world = await startDelivery({ worker: { pollMilliseconds: 60_000, drainMilliseconds: 5_000 } });
    const addresses = Array.from({ length: 8 }, (_, n) => `last-call-${n}@example.com`);
    for (const address of addresses) await world.signUp(address, { notify: false });
    await sleep(300);
    expect(world.sink.messages).toEqual([]);

    const started = Date.now();
    await world.stop();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(world.sink.messages.map((mail) => mail.to).sort()).toEqual([...addresses].sort());
    expect(await world.pending()).toBe(0);
  }, 20_000);

  it("stops within its bound with an attempt stuck, and leaves that message rescheduled", async () => {
    const world = await startDelivery({
      sink: { stallData: (recipients) => recipients.includes("stuck@example.com") },
      worker: { drainMilliseconds: 500 },
    });
    await world.signUp("stuck@example.com");
    await world.signUp("fine@example.com");
    await world.sink.waitFor("fine@example.com");

    const started = Date.now();
    await world.stop();
    // The drain, then at most a second for the cut-off attempt to record its failure.
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(world.failedIds()).toHaveLength(1);
    expect(await world.readOutbox(world.failedIds()[0]!)).toMatchObject({
      attempts: 1,
      nextAttemptAt: expect.any(Date),
      lastError: expect.stringContaining("the mailer was closed"),
    });
    expect(await world.pending()).toBe(1);
    expect(world.sink.to("stuck@example.com")).toEqual([]);
  }, 20_000);

  it("keeps the lease of a send that outlasts it, so that no other worker takes the message over", async () => {
    // The mail server answers each message after 3 s, in which the test makes twice a lease go by.
    const world = await startDelivery({ sink: { dataDelayMs: 3_000 }, worker: { renewMilliseconds: 50 } });
    await world.signUp("slow@example.com");
    await expect.poll(world.renewals).toBeGreaterThan(0);

    for (let n = 0; n < 3; n += 1) {
      const renewed = world.renewals();
      world.clock.shift += ((OUTBOX_LEASE_SECONDS * 2) / 3) * 1000;
      // A renewal that started after the shift.
      await expect.poll(world.renewals).toBeGreaterThan(renewed + 1);
      expect(await world.claimElsewhere()).toEqual([]);
    }
    await world.sink.waitFor("slow@example.com");
    await world.stop();
    expect(world.sink.to("slow@example.com")).toHaveLength(1);
    expect(await world.pending()).toBe(0);
    expect(world.logLines().filter((line) => line["component"] === "outbox")).toEqual([]);
  }, 20_000);

  it("says when a message still being sent has lost its lease to another worker", async () => {
    let stalled = false;
    const world = await startDelivery({
      sink: {
        stallData: () => {
          stalled = true;
          return true;
        },
      },
      worker: { renewMilliseconds: 50, drainMilliseconds: 100 },
    });
    await world.signUp("overtaken@example.com");
    await expect.poll(() => stalled).toBe(true);
    // The worker seemed dead for a whole lease (a process stopped, a machine asleep): another took the message.
    world.clock.shift += (OUTBOX_LEASE_SECONDS + 1) * 1000;
    const [taken] = await world.claimElsewhere();
    expect(taken).toBeDefined();

    const lost = () => world.logLines().filter((line) => line["component"] === "outbox");
    await expect.poll(lost).toHaveLength(1);
    expect(lost()[0]).toMatchObject({ level: 40, message_ids: [taken!.entry.id] });
    // Once: it is renewed no more.
    await sleep(300);
    expect(lost()).toHaveLength(1);
    // Its late outcome changes nothing: the message is the other worker's to record.
    await world.stop();
    expect(await world.pending()).toBe(1);
  }, 20_000);

  it("keeps leases short, renewing them often enough that three renewals in a row may fail", () => {
    // A dead worker's mail waits at most a lease: well within the minute after a restart.
    expect(OUTBOX_LEASE_SECONDS).toBeLessThanOrEqual(30);
    expect(OUTBOX_RENEWAL_SECONDS * 3).toBeLessThan(OUTBOX_LEASE_SECONDS);
  });
});
