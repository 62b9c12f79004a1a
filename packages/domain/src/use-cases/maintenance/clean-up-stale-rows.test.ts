import { describe, expect, it } from "vitest";
import { context, failsWith } from "../../testing/fails-with.ts";
import { signedIn } from "../../testing/signed-in.ts";
import { testPolicy } from "../../testing/test-policy.ts";
import { staleCutoffs } from "./clean-up-stale-rows.ts";

const NOW = new Date("2031-03-01T12:00:00.000Z");
const hoursBefore = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);

describe("the clean-up", () => {
  it("keeps each kind of row for Supabase Auth's time, the session limits and the outbox's retention", () => {
    const cutoffs = staleCutoffs(
      testPolicy({
        sessions: { timeboxSeconds: 3600, inactivityTimeoutSeconds: 1800 },
        otp: { emailOtpExpSeconds: 3600, smsOtpExpSeconds: 60 },
        cleanup: { outboxRetentionSeconds: 48 * 3600 },
        signup: { anonymousEnabled: true },
      }),
      NOW,
    );
    expect(Object.fromEntries(cutoffs)).toEqual({
      rotated_refresh_tokens: hoursBefore(24),
      ended_sessions: hoursBefore(72),
      timeboxed_sessions: hoursBefore(25),
      inactive_sessions: hoursBefore(24.5),
      one_time_tokens: hoursBefore(25),
      flow_states: hoursBefore(24),
      oauth_flows: hoursBefore(24),
      saml_relay_states: hoursBefore(24),
      mfa_challenges: hoursBefore(24),
      unverified_factors: hoursBefore(24),
      oauth_authorizations: NOW,
      webauthn_challenges: NOW,
      used_id_tokens: NOW,
      finished_outbox: hoursBefore(48),
      anonymous_users: hoursBefore(30 * 24),
    });
    // Rotated tokens go first, so that a session deleted after them takes few with it.
    expect([...cutoffs.keys()][0]).toBe("rotated_refresh_tokens");
  });

  it("leaves sessions under no limit, and anonymous users while anonymous sign-ins are off", () => {
    const cutoffs = staleCutoffs(testPolicy({ signup: { anonymousEnabled: false } }), NOW);
    expect(cutoffs.has("timeboxed_sessions")).toBe(false);
    expect(cutoffs.has("inactive_sessions")).toBe(false);
    expect(cutoffs.has("anonymous_users")).toBe(false);
  });

  it("deletes rotated refresh tokens a day after their rotation, in batches, never the session's current one", async () => {
    const world = await signedIn();
    const { auth, clock } = world;
    clock.advance({ seconds: 1 });
    const second = await auth.refreshSession({ refreshToken: world.grant.refreshToken, context });
    clock.advance({ seconds: 1 });
    const third = await auth.refreshSession({ refreshToken: second.refreshToken, context });
    clock.advance({ hours: 25 });
    const fourth = await auth.refreshSession({ refreshToken: third.refreshToken, context });

    // One row a statement, one statement a kind: there is more to do.
    const first = await auth.cleanUpStaleRows({ batchSize: 1, batchesPerKind: 1 });
    expect(first).toEqual({ deleted: { rotated_refresh_tokens: 1 }, more: true });
    const rest = await auth.cleanUpStaleRows({ batchSize: 1, batchesPerKind: 10 });
    expect(rest).toEqual({ deleted: { rotated_refresh_tokens: 1 }, more: false });
    expect(world.events.of("stale_rows_deleted")).toEqual([
      { kind: "stale_rows_deleted", rows: "rotated_refresh_tokens", count: 1 },
      { kind: "stale_rows_deleted", rows: "rotated_refresh_tokens", count: 1 },
    ]);

    // A token rotated more than a day ago is unknown now, and ends nothing; the one rotated just now is still known
    // (presented again, it would be reuse), and the session goes on.
    await failsWith(
      "refresh_token_not_found",
      auth.refreshSession({ refreshToken: world.grant.refreshToken, context }),
    );
    await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: second.refreshToken, context }));
    expect((await auth.cleanUpStaleRows({ batchSize: 100, batchesPerKind: 10 })).deleted).toEqual({});
    await auth.refreshSession({ refreshToken: fourth.refreshToken, context });
  });

  it("pauses after each statement for the time it took, times `pause`", async () => {
    const world = await signedIn();
    const { auth, clock } = world;
    let refresh = world.grant.refreshToken;
    for (let i = 0; i < 3; i++) {
      clock.advance({ seconds: 1 });
      refresh = (await auth.refreshSession({ refreshToken: refresh, context })).refreshToken;
    }
    clock.advance({ hours: 25 });
    // Each statement takes 40 ms of this clock; the pauses are what else it moved.
    const sleeps: number[] = [];
    const statementMs = 40;
    const deleteStale = world.stores.staleRows.deleteStale.bind(world.stores.staleRows);
    world.stores.staleRows.deleteStale = async (...args) => {
      clock.advance({ milliseconds: statementMs });
      return deleteStale(...args);
    };
    const sleep = clock.sleep.bind(clock);
    clock.sleep = async (ms) => {
      sleeps.push(ms);
      return sleep(ms);
    };
    await auth.cleanUpStaleRows({ batchSize: 1, batchesPerKind: 2, pause: 1.5 });
    expect(sleeps.length).toBeGreaterThan(2);
    expect(new Set(sleeps)).toEqual(new Set([statementMs * 1.5]));
  });

  it("ends a pass before its next statement once asked to stop", async () => {
    const world = await signedIn();
    let statements = 0;
    const deleteStale = world.stores.staleRows.deleteStale.bind(world.stores.staleRows);
    world.stores.staleRows.deleteStale = async (...args) => {
      statements++;
      return deleteStale(...args);
    };
    const pass = await world.auth.cleanUpStaleRows({
      batchSize: 1,
      batchesPerKind: 5,
      stopping: () => statements >= 2,
    });
    expect(statements).toBe(2);
    expect(pass).toEqual({ deleted: {}, more: false });
  });
});
