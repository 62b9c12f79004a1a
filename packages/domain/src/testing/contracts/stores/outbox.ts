import { beforeAll, describe, expect, it } from "vitest";
import type { OutboxEntry } from "../../../model/outbox.ts";
import type { Stores, Transactor } from "../../../ports/stores.ts";
import { rejection, type StoreContractHarness, type StoreContractSubject, uuid } from "./support.ts";

/** What an `OutboxStore` must do: claims, leases and their renewal, and the backlog. */
export function describeOutboxContract(harness: StoreContractHarness): void {
  describe("outbox", () => {
    let subject: StoreContractSubject;
    let stores: Stores;
    let tx: Transactor;
    beforeAll(() => {
      subject = harness();
      ({ stores, tx } = subject);
    });

    // Far from the other tests' times, so that only this test's messages are ever due at these instants.
    const at = (minute: number) => new Date(Date.UTC(2031, 0, 1, 0, minute));
    const anEntry = (overrides: Partial<OutboxEntry> = {}): OutboxEntry => ({
      id: uuid(),
      channel: "email",
      sealedMessage: `sealed-${uuid()}`,
      createdAt: at(0),
      nextAttemptAt: at(0),
      expiresAt: at(600),
      attempts: 0,
      deliveredAt: null,
      lastError: null,
      ...overrides,
    });
    let minute = 1000;
    /** A stretch of time of this test's own; what earlier tests left due is delivered first. */
    const window = async () => {
      minute += 100;
      const claim = uuid();
      for (const left of await stores.outbox.claimDue({
        now: at(minute - 1),
        limit: 1000,
        leaseUntil: at(minute - 1),
        claim,
      })) {
        await stores.outbox.markDelivered({ id: left.id, claim }, at(minute - 1));
      }
      return minute;
    };

    it("keeps a queued message, and nothing of one whose transaction rolled back", async () => {
      const kept = anEntry({ channel: "sms" });
      await tx.run((s) => s.outbox.enqueue(kept));
      expect(await subject.readOutbox(kept.id)).toEqual(kept);
      const dropped = anEntry();
      await rejection(
        tx.run(async (s) => {
          await s.outbox.enqueue(dropped);
          throw new Error("boom");
        }),
      );
      expect(await subject.readOutbox(dropped.id)).toBeNull();
    });

    it("claims what is due, oldest first, up to the limit, and leases it", async () => {
      const start = await window();
      const [first, second, later] = [
        anEntry({ nextAttemptAt: at(start) }),
        anEntry({ nextAttemptAt: at(start + 1) }),
        anEntry({ nextAttemptAt: at(start + 50) }),
      ];
      for (const entry of [second, later, first]) await stores.outbox.enqueue(entry);

      const claimed = await stores.outbox.claimDue({
        now: at(start + 2),
        limit: 10,
        leaseUntil: at(start + 5),
        claim: uuid(),
      });
      expect(claimed.map((entry) => entry.id)).toEqual([first.id, second.id]);
      expect(claimed[0]).toEqual(first);
      // Leased: no one else gets them until the lease runs out.
      expect(
        await stores.outbox.claimDue({ now: at(start + 3), limit: 10, leaseUntil: at(start + 6), claim: uuid() }),
      ).toEqual([]);
      const afterLease = await stores.outbox.claimDue({
        now: at(start + 5),
        limit: 1,
        leaseUntil: at(start + 8),
        claim: uuid(),
      });
      expect(afterLease.map((entry) => entry.id)).toEqual([first.id]);
    });

    it("never gives one message to two workers claiming at once", async () => {
      const start = await window();
      const entries = Array.from({ length: 12 }, (_, i) => anEntry({ nextAttemptAt: at(start + (i % 3)) }));
      for (const entry of entries) await stores.outbox.enqueue(entry);
      const claims = await Promise.all(
        Array.from({ length: 4 }, () =>
          stores.outbox.claimDue({ now: at(start + 10), limit: 5, leaseUntil: at(start + 20), claim: uuid() }),
        ),
      );
      const ids = claims.flat().map((entry) => entry.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids)).toEqual(new Set(entries.map((entry) => entry.id)));
    });

    it("erases a delivered message and never hands it out again", async () => {
      const start = await window();
      const entry = anEntry({ nextAttemptAt: at(start) });
      await stores.outbox.enqueue(entry);
      const claim = uuid();
      await stores.outbox.claimDue({ now: at(start), limit: 10, leaseUntil: at(start + 1), claim });
      expect(await stores.outbox.markDelivered({ id: entry.id, claim }, at(start + 1))).toBe(true);
      expect(await subject.readOutbox(entry.id)).toEqual({
        ...entry,
        sealedMessage: null,
        nextAttemptAt: null,
        deliveredAt: at(start + 1),
      });
      expect(
        await stores.outbox.claimDue({ now: at(start + 90), limit: 10, leaseUntil: at(start + 91), claim: uuid() }),
      ).toEqual([]);
    });

    it("counts what is still to deliver, per channel, with the oldest's age", async () => {
      await window();
      // Only this test's messages are pending now, whatever earlier tests left behind.
      const start = minute + 100;
      minute = start;
      const future = { nextAttemptAt: at(start + 50) };
      const oldest = anEntry({ ...future, createdAt: at(start - 3) });
      const retrying = anEntry({ ...future, createdAt: at(start - 1), attempts: 2, lastError: "421" });
      const text = anEntry({ ...future, channel: "sms", createdAt: at(start - 2) });
      const delivered = anEntry({ createdAt: at(start - 9), nextAttemptAt: null, deliveredAt: at(start - 8) });
      const givenUp = anEntry({ createdAt: at(start - 9), nextAttemptAt: null, sealedMessage: null, attempts: 5 });
      for (const entry of [retrying, delivered, oldest, text, givenUp]) await stores.outbox.enqueue(entry);
      const claim = uuid();
      await stores.outbox.claimDue({ now: at(start + 50), limit: 1, leaseUntil: at(start + 51), claim });

      const byChannel = Object.fromEntries((await stores.outbox.pending()).map((each) => [each.channel, each]));
      // A message being sent (claimed) is still pending until its outcome is recorded.
      expect(byChannel).toEqual({
        email: { channel: "email", count: 2, oldestCreatedAt: at(start - 3) },
        sms: { channel: "sms", count: 1, oldestCreatedAt: at(start - 2) },
      });
    });

    it("reschedules a failed message, and erases one given up on", async () => {
      const start = await window();
      const retried = anEntry({ nextAttemptAt: at(start) });
      const abandoned = anEntry({ nextAttemptAt: at(start) });
      await stores.outbox.enqueue(retried);
      await stores.outbox.enqueue(abandoned);
      const claim = uuid();
      await stores.outbox.claimDue({ now: at(start), limit: 10, leaseUntil: at(start + 30), claim });
      await stores.outbox.markFailed(
        { id: retried.id, claim },
        { attempts: 1, nextAttemptAt: at(start + 2), error: "421 try later" },
      );
      await stores.outbox.markFailed(
        { id: abandoned.id, claim },
        { attempts: 1, nextAttemptAt: null, error: "unopenable" },
      );

      expect(await subject.readOutbox(retried.id)).toEqual({
        ...retried,
        attempts: 1,
        nextAttemptAt: at(start + 2),
        lastError: "421 try later",
      });
      expect(await subject.readOutbox(abandoned.id)).toMatchObject({
        sealedMessage: null,
        nextAttemptAt: null,
        lastError: "unopenable",
      });
      // A failure ends the lease: the retry is due at its own time, not the lease's.
      const again = await stores.outbox.claimDue({
        now: at(start + 2),
        limit: 10,
        leaseUntil: at(start + 3),
        claim: uuid(),
      });
      expect(again.map((entry) => entry.id)).toEqual([retried.id]);
    });

    it("renews only the leases still held under their claim, and only while they run", async () => {
      const start = await window();
      const [kept, other, lapsed] = [0, 1, 2].map((n) => anEntry({ nextAttemptAt: at(start + n) })) as [
        OutboxEntry,
        OutboxEntry,
        OutboxEntry,
      ];
      for (const entry of [kept, other, lapsed]) await stores.outbox.enqueue(entry);
      const [mine, theirs] = [uuid(), uuid()];
      await stores.outbox.claimDue({ now: at(start + 2), limit: 2, leaseUntil: at(start + 7), claim: mine });
      await stores.outbox.claimDue({ now: at(start + 2), limit: 1, leaseUntil: at(start + 4), claim: theirs });

      // `other` is held under `mine`, not the claim named here; `lapsed`'s lease has run out.
      const renewed = await stores.outbox.renewLeases({
        held: [
          { id: kept.id, claim: mine },
          { id: other.id, claim: theirs },
          { id: lapsed.id, claim: theirs },
        ],
        now: at(start + 5),
        leaseUntil: at(start + 12),
      });
      expect(renewed).toEqual([kept.id]);
      // Past the first lease, only what was renewed is still kept from other workers, until its new lease ends.
      const retaken = await stores.outbox.claimDue({
        now: at(start + 8),
        limit: 10,
        leaseUntil: at(start + 20),
        claim: uuid(),
      });
      expect(retaken.map((entry) => entry.id)).toEqual([other.id, lapsed.id]);
      expect(
        await stores.outbox.claimDue({ now: at(start + 12), limit: 10, leaseUntil: at(start + 13), claim: uuid() }),
      ).toEqual([kept]);
    });

    it("lets a worker take over a claim whose lease ran out, which its first holder can no longer renew", async () => {
      const start = await window();
      const entry = anEntry({ nextAttemptAt: at(start) });
      await stores.outbox.enqueue(entry);
      const [dead, next] = [uuid(), uuid()];
      await stores.outbox.claimDue({ now: at(start), limit: 10, leaseUntil: at(start + 5), claim: dead });
      // Run out, though no one has claimed it yet: not renewed.
      const late = { held: [{ id: entry.id, claim: dead }], now: at(start + 5), leaseUntil: at(start + 9) };
      expect(await stores.outbox.renewLeases(late)).toEqual([]);

      const taken = await stores.outbox.claimDue({
        now: at(start + 5),
        limit: 10,
        leaseUntil: at(start + 8),
        claim: next,
      });
      expect(taken).toEqual([entry]);
      expect(await stores.outbox.renewLeases({ ...late, now: at(start + 6) })).toEqual([]);
      expect(
        await stores.outbox.renewLeases({
          held: [{ id: entry.id, claim: next }],
          now: at(start + 7),
          leaseUntil: at(start + 12),
        }),
      ).toEqual([entry.id]);
      expect(
        await stores.outbox.claimDue({ now: at(start + 11), limit: 10, leaseUntil: at(start + 13), claim: uuid() }),
      ).toEqual([]);
      // Recorded, it has no lease left to renew.
      expect(await stores.outbox.markDelivered({ id: entry.id, claim: next }, at(start + 11))).toBe(true);
      expect(
        await stores.outbox.renewLeases({
          held: [{ id: entry.id, claim: next }],
          now: at(start + 11),
          leaseUntil: at(start + 20),
        }),
      ).toEqual([]);
      expect(await subject.readOutbox(entry.id)).toMatchObject({ deliveredAt: at(start + 11), nextAttemptAt: null });
    });

    it("lets only the latest claim record the outcome: a worker that overran its lease changes nothing", async () => {
      const start = await window();
      const entry = anEntry({ nextAttemptAt: at(start) });
      await stores.outbox.enqueue(entry);
      const [slow, fast] = [uuid(), uuid()];
      await stores.outbox.claimDue({ now: at(start), limit: 10, leaseUntil: at(start + 5), claim: slow });
      const retaken = await stores.outbox.claimDue({
        now: at(start + 5),
        limit: 10,
        leaseUntil: at(start + 10),
        claim: fast,
      });
      expect(retaken.map((claimed) => claimed.id)).toEqual([entry.id]);

      expect(await stores.outbox.markDelivered({ id: entry.id, claim: fast }, at(start + 6))).toBe(true);
      const failedLate = { attempts: 1, nextAttemptAt: at(start + 8), error: "timed out" };
      expect(await stores.outbox.markFailed({ id: entry.id, claim: slow }, failedLate)).toBe(false);
      expect(await stores.outbox.markDelivered({ id: entry.id, claim: slow }, at(start + 9))).toBe(false);
      expect(await subject.readOutbox(entry.id)).toMatchObject({
        deliveredAt: at(start + 6),
        nextAttemptAt: null,
        attempts: 0,
      });
    });
  });
}
