import type { FlowEvent, PasswordHasher } from "@latchkey/domain";
import { type DataPoint, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { describe, expect, it } from "vitest";
import { flowEventCounters, observeOutbox } from "../../src/observability/flow-metrics.ts";
import { timedHasher } from "../../src/observability/timed-hasher.ts";

// Each flow event to the instrument it adds to, read back through a reader that collects on demand.

class OnDemandReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

function meterWithReader() {
  const reader = new OnDemandReader();
  const provider = new MeterProvider({ readers: [reader] });
  /** Every data point of `name`, as [attributes, value] (a histogram's value is its count). */
  const points = async (name: string) => {
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((m) => m.descriptor.name === name);
    return (metric?.dataPoints ?? []).map((point: DataPoint<unknown>) => [
      point.attributes,
      typeof point.value === "number" ? point.value : (point.value as { count: number }).count,
    ]);
  };
  return { meter: provider.getMeter("test"), points };
}

describe("the flows' counters", () => {
  it("count each event under its instrument and attributes", async () => {
    const { meter, points } = meterWithReader();
    const events = flowEventCounters(meter);
    const recorded: FlowEvent[] = [
      { kind: "signed_in", method: "oauth", provider: "github" },
      { kind: "signed_in", method: "password" },
      { kind: "signed_up", provider: "anonymous" },
      { kind: "refreshed", rotated: true },
      { kind: "refresh_token_reused", familyRevoked: true },
      { kind: "rate_limited", limit: "client_verify" },
      { kind: "captcha_failed", reason: "missing" },
      { kind: "webauthn_counter_regressed", credential: "passkey", id: "p1", userId: "u1" },
      { kind: "pwned_check_failed", refused: false, reason: "fetch failed" },
      { kind: "stale_rows_deleted", rows: "rotated_refresh_tokens", count: 250 },
      { kind: "stale_rows_deleted", rows: "rotated_refresh_tokens", count: 3 },
      { kind: "stale_rows_deleted", rows: "ended_sessions", count: 7 },
      { kind: "message_delivered", id: "m1", message: { channel: "sms", kind: "otp" } },
      { kind: "message_delivered", id: "m2", message: { channel: "email", kind: "password_changed" } },
      { kind: "message_failed", message: { channel: "email", kind: "recovery" }, willRetry: false },
      { kind: "message_failed", message: null, willRetry: false },
    ];
    for (const event of recorded) events.record(event);

    expect(await points("auth.sign_ins")).toEqual([
      [{ method: "oauth", provider: "github" }, 1],
      [{ method: "password" }, 1],
    ]);
    expect(await points("auth.sign_ups")).toEqual([[{ provider: "anonymous" }, 1]]);
    expect(await points("auth.token_refreshes")).toEqual([[{ rotated: true }, 1]]);
    expect(await points("auth.refresh_token_reuses")).toEqual([[{ session_revoked: true }, 1]]);
    expect(await points("auth.rate_limit_refusals")).toEqual([[{ limit: "client_verify" }, 1]]);
    expect(await points("auth.captcha_failures")).toEqual([[{ reason: "missing" }, 1]]);
    expect(await points("gotrue_cleanup_affected_rows")).toEqual([
      [{ kind: "rotated_refresh_tokens" }, 253],
      [{ kind: "ended_sessions" }, 7],
    ]);
    expect(await points("auth.webauthn_counter_regressions")).toEqual([[{ credential: "passkey" }, 1]]);
    expect(await points("auth.pwned_password_check_failures")).toEqual([[{ refused: false }, 1]]);
    expect(await points("auth.outbox.deliveries")).toEqual([
      [{ channel: "sms", kind: "otp" }, 1],
      [{ channel: "email", kind: "password_changed" }, 1],
    ]);
    expect(await points("auth.outbox.failures")).toEqual([
      [{ channel: "email", kind: "recovery", will_retry: false }, 1],
      [{ will_retry: false }, 1],
    ]);
    // GoTrue's email counters: one operation per attempt, an error per failed one, by GoTrue's email type.
    expect(await points("global_auth_email_send_operations_total")).toEqual([
      [{ type: "password_changed_notification" }, 1],
      [{ type: "recovery" }, 1],
    ]);
    expect(await points("global_auth_email_send_errors_total")).toEqual([[{ type: "recovery" }, 1]]);
  });

  it("observe the outbox's depth on each collection, and keep the last values through a read that fails", async () => {
    const { meter, points } = meterWithReader();
    let depth = [
      { channel: "email" as const, pending: 3, oldestAgeSeconds: 42 },
      { channel: "sms" as const, pending: 0, oldestAgeSeconds: 0 },
    ];
    let fails = false;
    observeOutbox(meter, async () => {
      if (fails) throw new Error("connection terminated");
      return depth;
    });
    expect(await points("auth.outbox.pending")).toEqual([
      [{ channel: "email" }, 3],
      [{ channel: "sms" }, 0],
    ]);
    depth = [{ channel: "email", pending: 1, oldestAgeSeconds: 5 }, depth[1]!];
    expect(await points("auth.outbox.oldest_pending_age")).toEqual([
      [{ channel: "email" }, 5],
      [{ channel: "sms" }, 0],
    ]);
    // The database unreachable: the last values read stay, until a read succeeds again.
    fails = true;
    expect(await points("auth.outbox.pending")).toEqual([
      [{ channel: "email" }, 1],
      [{ channel: "sms" }, 0],
    ]);
  });
});

describe("the timed hasher", () => {
  const hasher: PasswordHasher = {
    hash: async () => "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
    verify: async (_hash, password) => ({ ok: password === "right", needsRehash: false }),
    verifyNothing: async () => {},
  };

  it("times hashes, verifications by the stored hash's algorithm, and decoys, with GoTrue's counters", async () => {
    const { meter, points } = meterWithReader();
    const timed = timedHasher(hasher, meter);
    expect(await timed.hash("right")).toMatch(/^\$argon2id\$/);
    expect((await timed.verify("$2a$10$abcdefghijklmnopqrstuv", "right")).ok).toBe(true);
    expect((await timed.verify("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", "wrong")).ok).toBe(false);
    await timed.verifyNothing("anything");

    expect(await points("auth.password_hash.duration")).toEqual([
      [{ operation: "hash", alg: "argon2id" }, 1],
      [{ operation: "verify", alg: "bcrypt" }, 1],
      [{ operation: "verify", alg: "argon2id" }, 1],
      [{ operation: "decoy", alg: "argon2id" }, 1],
    ]);
    expect(await points("gotrue_generate_from_password_submitted")).toEqual([[{ alg: "argon2id" }, 1]]);
    expect(await points("gotrue_compare_hash_and_password_submitted")).toEqual([
      [{ alg: "bcrypt" }, 1],
      [{ alg: "argon2id" }, 1],
    ]);
    expect(await points("gotrue_compare_hash_and_password_completed")).toEqual([
      [{ alg: "bcrypt", match: true }, 1],
      [{ alg: "argon2id", match: false }, 1],
    ]);
  });

  it("times a hash that throws, and leaves it submitted but not completed", async () => {
    const { meter, points } = meterWithReader();
    const timed = timedHasher({ ...hasher, hash: async () => Promise.reject(new Error("thread pool gone")) }, meter);
    await expect(timed.hash("right")).rejects.toThrow("thread pool gone");
    expect(await points("auth.password_hash.duration")).toEqual([[{ operation: "hash", alg: "argon2id" }, 1]]);
    expect(await points("gotrue_generate_from_password_submitted")).toEqual([[{ alg: "argon2id" }, 1]]);
    expect(await points("gotrue_generate_from_password_completed")).toEqual([]);
  });
});
