import { describe, expect, it } from "vitest";
import type { AuthEmail } from "../../model/mail.ts";
import { FIRST_RETRY_SECONDS, LONGEST_RETRY_SECONDS } from "../../model/outbox.ts";
import type { Mailer } from "../../ports/mailer.ts";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { context } from "../../testing/fails-with.ts";
import { OUTBOX_LEASE_SECONDS } from "./outbox.ts";

const password = "secret-password";

/** A mailer that refuses some addresses, and can be switched off and on; `attempts` holds every call's message id. */
function flakyMailer() {
  const sent: AuthEmail[] = [];
  const attempts: { to: string; messageId: string }[] = [];
  const state = { down: false, refused: new Set<string>() };
  const mailer: Mailer = {
    async send(email, { messageId }) {
      attempts.push({ to: email.to, messageId });
      if (state.down) throw new Error("connect ECONNREFUSED 127.0.0.1:2525");
      if (state.refused.has(email.to)) throw new Error(`550 mailbox unavailable <${email.to}>`);
      sent.push(email);
    },
  };
  return { mailer, sent, attempts, state };
}

describe("the outbox", () => {
  it("queues a signup's mail in its transaction and delivers it once", async () => {
    const { mailer, sent } = flakyMailer();
    const { auth, stores } = createTestAuth({ ports: { mailer } });
    await auth.signUp({ email: "once@example.com", password, context });
    expect(sent).toEqual([]);

    expect(await auth.deliverDueMessages()).toMatchObject({ claimed: 1, delivered: 1 });
    expect(await auth.deliverDueMessages()).toMatchObject({ claimed: 0, delivered: 0 });
    expect(sent.map((email) => email.to)).toEqual(["once@example.com"]);
    const [entry] = await stores.outbox.claimDue({
      now: new Date("2099-01-01"),
      limit: 10,
      leaseUntil: new Date("2099-01-02"),
      claim: crypto.randomUUID(),
    });
    expect(entry).toBeUndefined();
  });

  it("keeps the tokens it carries sealed until delivery, then erases them", async () => {
    const { auth, stores, ports, clock, readOutbox } = createTestAuth();
    await auth.signUp({ email: "sealed@example.com", password, context });
    // Claimed with a lease that has already run out, so delivery can still claim it below.
    const [queued] = await stores.outbox.claimDue({
      now: clock.now(),
      limit: 1,
      leaseUntil: clock.now(),
      claim: crypto.randomUUID(),
    });
    const code = JSON.parse(ports.secrets.open(queued!.sealedMessage!)).email.otp as string;
    expect(queued!.sealedMessage).not.toContain(code);
    expect(queued!.sealedMessage).not.toContain("sealed@example.com");
    await auth.deliverDueMessages();
    expect((await readOutbox(queued!.id))?.sealedMessage).toBeNull();
  });

  it("retries a failed delivery with growing delays, and delivers once the mail server is back", async () => {
    const { mailer, sent, state } = flakyMailer();
    const { auth, clock, readOutbox } = createTestAuth({ ports: { mailer } });
    await auth.signUp({ email: "retry@example.com", password, context });
    state.down = true;
    const failed = await auth.deliverDueMessages();
    expect(failed.failures).toEqual([
      {
        outcome: "failed",
        id: expect.any(String),
        message: { channel: "email", kind: "confirmation" },
        error: "connect ECONNREFUSED 127.0.0.1:2525",
        willRetry: true,
      },
    ]);
    const id = failed.failures[0]!.id;
    expect(await readOutbox(id)).toMatchObject({ attempts: 1, lastError: "connect ECONNREFUSED 127.0.0.1:2525" });

    // Not due again before the delay.
    clock.advance({ seconds: FIRST_RETRY_SECONDS - 1 });
    expect((await auth.deliverDueMessages()).claimed).toBe(0);
    clock.advance({ seconds: 1 });
    expect((await auth.deliverDueMessages()).failures).toHaveLength(1);
    expect((await readOutbox(id))?.nextAttemptAt).toEqual(
      new Date(clock.now().getTime() + 2 * FIRST_RETRY_SECONDS * 1000),
    );

    state.down = false;
    clock.advance({ seconds: 2 * FIRST_RETRY_SECONDS });
    expect(await auth.deliverDueMessages()).toMatchObject({ claimed: 1, delivered: 1 });
    expect(sent.map((email) => email.to)).toEqual(["retry@example.com"]);
  });

  it("sends every attempt at a message under its outbox id, and each message under its own", async () => {
    const { mailer, attempts, state } = flakyMailer();
    const { auth, clock } = createTestAuth({ ports: { mailer } });
    await auth.signUp({ email: "first@example.com", password, context });
    await auth.signUp({ email: "second@example.com", password, context });
    state.down = true;
    const failed = await auth.deliverDueMessages();
    state.down = false;
    clock.advance({ seconds: FIRST_RETRY_SECONDS });
    expect(await auth.deliverDueMessages()).toMatchObject({ claimed: 2, delivered: 2 });

    const idsOf = (to: string) => attempts.filter((attempt) => attempt.to === to).map((attempt) => attempt.messageId);
    const [first, firstAgain] = idsOf("first@example.com");
    const [second, secondAgain] = idsOf("second@example.com");
    expect(firstAgain).toBe(first);
    expect(secondAgain).toBe(second);
    expect(second).not.toBe(first);
    // The outbox entries' ids.
    expect(failed.failures.map((failure) => failure.id).sort()).toEqual([first, second].sort());
  });

  it("keeps trying to record a delivery the database missed, rather than sending the mail again", async () => {
    const { mailer, sent } = flakyMailer();
    const testAuth = createTestAuth({ ports: { mailer } });
    const { outbox } = testAuth.stores;
    let refusals = 2;
    const { auth, clock } = createTestAuth({
      ports: {
        mailer,
        tx: testAuth.ports.tx,
        stores: {
          ...testAuth.stores,
          outbox: {
            ...outbox,
            markDelivered: async (held, at) => {
              if (refusals-- > 0) throw new Error("terminating connection due to administrator command");
              return outbox.markDelivered(held, at);
            },
          },
        },
      },
    });
    await auth.signUp({ email: "restart@example.com", password, context });
    const [claimed] = await auth.claimDueMessages({ limit: 10 });
    const started = clock.now().getTime();
    expect(await auth.deliverClaimedMessage(claimed!)).toEqual({
      outcome: "delivered",
      id: claimed!.entry.id,
      message: { channel: "email", kind: "confirmation" },
    });
    // Two short waits, far inside the lease.
    expect(clock.now().getTime() - started).toBeLessThan(5_000);
    expect(await testAuth.readOutbox(claimed!.entry.id)).toMatchObject({
      deliveredAt: expect.any(Date),
      sealedMessage: null,
    });
    clock.advance({ minutes: 10 });
    expect((await auth.deliverDueMessages()).claimed).toBe(0);
    expect(sent.map((email) => email.to)).toEqual(["restart@example.com"]);
  });

  it("sends the mail of a worker that died within its short lease, again under the same Message-ID", async () => {
    const { mailer, attempts } = flakyMailer();
    const testAuth = createTestAuth({ ports: { mailer } });
    // The dying worker's mail server takes the mail, and then its process is gone before it records the delivery.
    const dying = createTestAuth({
      ports: {
        mailer,
        clock: testAuth.clock,
        tx: testAuth.ports.tx,
        stores: {
          ...testAuth.stores,
          outbox: {
            ...testAuth.stores.outbox,
            markDelivered: () => Promise.reject(new Error("Connection terminated: the process was killed")),
          },
        },
      },
    });
    const { auth, clock } = testAuth;
    await auth.signUp({ email: "orphan@example.com", password, context });
    const claimedAt = clock.now().getTime();
    const [claimed] = await dying.auth.claimDueMessages({ limit: 10 });
    await expect(dying.auth.deliverClaimedMessage(claimed!)).rejects.toThrow("killed");

    // No one else sends it while the lease runs, and someone does as soon as it ends: within the minute.
    expect(OUTBOX_LEASE_SECONDS).toBeLessThanOrEqual(60);
    clock.advance({ milliseconds: claimedAt + OUTBOX_LEASE_SECONDS * 1000 - 1 - clock.now().getTime() });
    expect((await auth.deliverDueMessages()).claimed).toBe(0);
    clock.advance({ seconds: 1 });
    expect(await auth.deliverDueMessages()).toMatchObject({ claimed: 1, delivered: 1 });
    expect(attempts).toEqual([
      { to: "orphan@example.com", messageId: claimed!.entry.id },
      { to: "orphan@example.com", messageId: claimed!.entry.id },
    ]);
  });

  it("keeps a claim renewed while it is sent past its first lease, and renews no lease once it ran out", async () => {
    const { auth, clock } = createTestAuth();
    await auth.signUp({ email: "slow@example.com", password, context });
    const [held] = await auth.claimDueMessages({ limit: 10 });
    clock.advance({ seconds: OUTBOX_LEASE_SECONDS - 1 });
    expect(await auth.renewClaims([held!])).toEqual([held!.entry.id]);

    // Past the first lease: still held, for a whole lease from the renewal.
    clock.advance({ seconds: 2 });
    expect(await auth.claimDueMessages({ limit: 10 })).toEqual([]);
    clock.advance({ seconds: OUTBOX_LEASE_SECONDS - 3 });
    expect(await auth.claimDueMessages({ limit: 10 })).toEqual([]);
    // Not renewed again: run out, and another worker takes it over; the first can no longer renew it.
    clock.advance({ seconds: 1 });
    const [taken] = await auth.claimDueMessages({ limit: 10 });
    expect(taken?.entry.id).toBe(held!.entry.id);
    expect(await auth.renewClaims([held!])).toEqual([]);
    expect(await auth.renewClaims([taken!])).toEqual([held!.entry.id]);
  });

  it("claims no more than asked, and never a message already leased", async () => {
    const { mailer, sent } = flakyMailer();
    const { auth } = createTestAuth({ ports: { mailer } });
    for (const name of ["a", "b", "c"]) await auth.signUp({ email: `${name}@example.com`, password, context });
    const first = await auth.claimDueMessages({ limit: 2 });
    const second = await auth.claimDueMessages({ limit: 2 });
    expect(first).toHaveLength(2);
    expect(second).toHaveLength(1);
    expect(await auth.claimDueMessages({ limit: 2 })).toEqual([]);
    for (const message of [...second, ...first])
      expect(await auth.deliverClaimedMessage(message)).toMatchObject({ outcome: "delivered", id: message.entry.id });
    expect(sent.map((email) => email.to).sort()).toEqual(["a@example.com", "b@example.com", "c@example.com"]);
  });

  it("lets no failing address hold up the others", async () => {
    const { mailer, sent, state } = flakyMailer();
    const { auth } = createTestAuth({ ports: { mailer } });
    state.refused.add("bounces@example.com");
    await auth.signUp({ email: "bounces@example.com", password, context });
    for (const name of ["a", "b", "c"]) await auth.signUp({ email: `${name}@example.com`, password, context });
    const report = await auth.deliverDueMessages();
    expect(report).toMatchObject({ claimed: 4, delivered: 3 });
    expect(sent.map((email) => email.to).sort()).toEqual(["a@example.com", "b@example.com", "c@example.com"]);
  });

  it("gives up once a retry would come after the tokens expired, and erases the message", async () => {
    const { mailer, state } = flakyMailer();
    const { auth, clock, readOutbox } = createTestAuth({
      ports: { mailer },
      policy: { otp: { emailOtpExpSeconds: 10 } },
    });
    await auth.signUp({ email: "late@example.com", password, context });
    state.down = true;
    let report = await auth.deliverDueMessages();
    const id = report.failures[0]!.id;
    while (report.failures.every((failure) => failure.willRetry)) {
      clock.advance({ seconds: LONGEST_RETRY_SECONDS });
      report = await auth.deliverDueMessages();
      if (report.claimed === 0) break;
    }
    expect(await readOutbox(id)).toMatchObject({ nextAttemptAt: null, sealedMessage: null, deliveredAt: null });
  });

  it("gives up at once on a message it cannot open", async () => {
    const { auth, stores, clock } = createTestAuth();
    await stores.outbox.enqueue({
      id: crypto.randomUUID(),
      channel: "email",
      sealedMessage: "sealed under another key",
      createdAt: clock.now(),
      nextAttemptAt: clock.now(),
      expiresAt: new Date(clock.now().getTime() + 86_400_000),
      attempts: 0,
      deliveredAt: null,
      lastError: null,
    });
    expect((await auth.deliverDueMessages()).failures).toEqual([
      {
        outcome: "failed",
        id: expect.any(String),
        message: null,
        error: "the queued message cannot be opened",
        willRetry: false,
      },
    ]);
  });
});
