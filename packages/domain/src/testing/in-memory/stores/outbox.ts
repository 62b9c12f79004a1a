import type { OutboxEntry } from "../../../model/outbox.ts";
import type { OutboxStore } from "../../../ports/stores.ts";
import { copy, type State } from "./state.ts";

export const inMemoryOutbox = (state: State): OutboxStore => ({
  async enqueue(entry) {
    state.outbox.set(entry.id, copy({ ...entry, leaseUntil: null, claim: null }));
  },
  async claimDue({ now, limit, leaseUntil, claim }) {
    const due = [...state.outbox.values()]
      .filter(
        (entry) =>
          entry.nextAttemptAt !== null &&
          entry.nextAttemptAt <= now &&
          (entry.leaseUntil === null || entry.leaseUntil <= now),
      )
      .sort((a, b) => a.nextAttemptAt!.getTime() - b.nextAttemptAt!.getTime())
      .slice(0, limit);
    for (const entry of due) state.outbox.set(entry.id, { ...entry, leaseUntil, claim });
    return due.map(({ leaseUntil: _lease, claim: _claim, ...entry }) => copy(entry));
  },
  async renewLeases({ held, now, leaseUntil }) {
    const renewed: string[] = [];
    for (const { id, claim } of held) {
      const entry = state.outbox.get(id);
      if (!entry || entry.claim !== claim || entry.leaseUntil === null || entry.leaseUntil <= now) continue;
      state.outbox.set(id, { ...entry, leaseUntil });
      renewed.push(id);
    }
    return renewed;
  },
  async pending() {
    const backlog = new Map<OutboxEntry["channel"], { count: number; oldestCreatedAt: Date }>();
    for (const entry of state.outbox.values()) {
      if (entry.nextAttemptAt === null) continue;
      const seen = backlog.get(entry.channel);
      if (!seen) backlog.set(entry.channel, { count: 1, oldestCreatedAt: entry.createdAt });
      else {
        seen.count += 1;
        if (entry.createdAt < seen.oldestCreatedAt) seen.oldestCreatedAt = entry.createdAt;
      }
    }
    return [...backlog].map(([channel, { count, oldestCreatedAt }]) => ({
      channel,
      count,
      oldestCreatedAt: new Date(oldestCreatedAt),
    }));
  },
  async markDelivered({ id, claim }, at) {
    const entry = state.outbox.get(id);
    if (!entry || entry.claim !== claim) return false;
    state.outbox.set(id, {
      ...entry,
      deliveredAt: at,
      nextAttemptAt: null,
      sealedMessage: null,
      leaseUntil: null,
      claim: null,
    });
    return true;
  },
  async markFailed({ id, claim }, { attempts, nextAttemptAt, error }) {
    const entry = state.outbox.get(id);
    if (!entry || entry.claim !== claim) return false;
    const sealedMessage = nextAttemptAt === null ? null : entry.sealedMessage;
    state.outbox.set(id, {
      ...entry,
      attempts,
      nextAttemptAt,
      lastError: error,
      sealedMessage,
      leaseUntil: null,
      claim: null,
    });
    return true;
  },
});

/** What the outbox keeps of a message, sealed content included: the contract's window on it. */
export const readOutbox = (state: State, id: string): OutboxEntry | null => {
  const entry = state.outbox.get(id);
  if (!entry) return null;
  const { leaseUntil: _lease, claim: _claim, ...rest } = entry;
  return copy(rest);
};
