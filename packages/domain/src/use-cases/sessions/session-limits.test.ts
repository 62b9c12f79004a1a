import { describe, expect, it } from "vitest";
import { context, failsWith } from "../../testing/fails-with.ts";
import { signedIn } from "../../testing/signed-in.ts";

// SESSIONS_TIMEBOX and SESSIONS_INACTIVITY_TIMEOUT: GoTrue's CheckValidity, at the refresh and for access tokens.

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

  it("leave sessions alone when unset", async () => {
    const world = await signedIn();
    world.clock.advance({ seconds: 3600 * 24 * 365 });
    await world.auth.refreshSession({ refreshToken: world.grant.refreshToken, context });
  });
});
