import { describe, expect, it } from "vitest";
import { aFactor } from "../../testing/contracts/stores/support.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { signedIn, TEST_PASSWORD } from "../../testing/signed-in.ts";

// SESSIONS_*: GoTrue's CheckValidity, at the refresh and for access tokens, and its one session per user.

async function auditReasons(world: Awaited<ReturnType<typeof signedIn>>): Promise<unknown[]> {
  const audit = await world.stores.auditLog.list({ page: 1, perPage: 50 });
  return audit.entries.filter((entry) => entry.action === "token_revoked").map((entry) => entry.traits["reason"]);
}

describe("session limits", () => {
  it("end a session at SESSIONS_TIMEBOX, however often it is refreshed: its refresh and access tokens both", async () => {
    const world = await signedIn({ policy: { sessions: { timeboxSeconds: 60 } } });
    const { auth, clock } = world;
    clock.advance({ seconds: 30 });
    const refreshed = await auth.refreshSession({ refreshToken: world.grant.refreshToken, context });
    clock.advance({ seconds: 31 });
    await failsWith("session_expired", auth.authenticate({ accessToken: refreshed.accessToken }));
    const ended = await failsWith(
      "session_expired",
      auth.refreshSession({ refreshToken: refreshed.refreshToken, context }),
    );
    expect(ended.message).toBe("Invalid Refresh Token: Session Expired");
    // Gone for good, and recorded as ended by the policy.
    await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: refreshed.refreshToken, context }));
    const audit = await world.stores.auditLog.list({ page: 1, perPage: 20 });
    expect(audit.entries.find((entry) => entry.action === "token_revoked")?.traits).toMatchObject({
      reason: "session_timebox",
    });
  });

  it("end a session unrefreshed for SESSIONS_INACTIVITY_TIMEOUT, and not one refreshed in time", async () => {
    const world = await signedIn({ policy: { sessions: { inactivityTimeoutSeconds: 60 } } });
    const { auth, clock } = world;
    clock.advance({ seconds: 50 });
    const refreshed = await auth.refreshSession({ refreshToken: world.grant.refreshToken, context });
    clock.advance({ seconds: 50 });
    const again = await auth.refreshSession({ refreshToken: refreshed.refreshToken, context });
    clock.advance({ seconds: 61 });
    // Its access token is judged by its own expiry; the inactivity, at the refresh (GoTrue's).
    await auth.authenticate({ accessToken: again.accessToken });
    const ended = await failsWith(
      "session_expired",
      auth.refreshSession({ refreshToken: again.refreshToken, context }),
    );
    expect(ended.message).toBe("Invalid Refresh Token: Session Expired (Inactivity)");
  });

  it("end an aal1 session at SESSIONS_ALLOW_LOW_AAL once its user has a verified factor, and not before", async () => {
    const world = await signedIn({ policy: { sessions: { allowLowAalSeconds: 60 } } });
    const { auth, clock, user } = world;
    clock.advance({ seconds: 61 });
    // No verified factor: aal1 is the most this user can reach.
    const refreshed = await auth.refreshSession({ refreshToken: world.grant.refreshToken, context });
    await world.stores.factors.insert(aFactor(user.id, { status: "verified" }));
    const ended = await failsWith(
      "session_expired",
      auth.refreshSession({ refreshToken: refreshed.refreshToken, context }),
    );
    expect(ended.message).toBe("Invalid Refresh Token: Session Expired (Low AAL: User Needs MFA Verification)");
    expect(await auditReasons(world)).toEqual(["session_low_aal"]);
  });

  it("keep one session per user with SESSIONS_SINGLE_PER_USER: the one refreshed or opened last", async () => {
    const world = await signedIn({ policy: { sessions: { singlePerUser: true } } });
    const { auth, clock, user } = world;
    clock.advance({ seconds: 10 });
    const second = await auth.signInWithPassword({ email: user.email!, password: TEST_PASSWORD, context });
    clock.advance({ seconds: 10 });
    // The newer sign-in wins; the first is refused at its refresh, and ends for good.
    const ended = await failsWith(
      "session_expired",
      auth.refreshSession({ refreshToken: world.grant.refreshToken, context }),
    );
    expect(ended.message).toBe("Invalid Refresh Token: Session Expired (Revoked by Newer Login)");
    await failsWith(
      "refresh_token_not_found",
      auth.refreshSession({ refreshToken: world.grant.refreshToken, context }),
    );
    expect(await auditReasons(world)).toEqual(["session_newer_login"]);
    // The newest goes on refreshing, again and again.
    const next = await auth.refreshSession({ refreshToken: second.refreshToken, context });
    clock.advance({ seconds: 10 });
    await auth.refreshSession({ refreshToken: next.refreshToken, context });
  });

  it("count ended sessions out of SESSIONS_SINGLE_PER_USER: a signed-out newer session supersedes nothing", async () => {
    const world = await signedIn({ policy: { sessions: { singlePerUser: true } } });
    const { auth, clock, user } = world;
    clock.advance({ seconds: 10 });
    const second = await auth.signInWithPassword({ email: user.email!, password: TEST_PASSWORD, context });
    const principal = await auth.authenticate({ accessToken: second.accessToken });
    await auth.signOut({ principal, scope: "local", context });
    clock.advance({ seconds: 10 });
    await auth.refreshSession({ refreshToken: world.grant.refreshToken, context });
  });

  it("leave sessions alone when unset", async () => {
    const world = await signedIn();
    world.clock.advance({ seconds: 3600 * 24 * 365 });
    await world.auth.refreshSession({ refreshToken: world.grant.refreshToken, context });
  });
});
