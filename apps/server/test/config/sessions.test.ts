import { describe, expect, it } from "vitest";
import { toPolicy } from "../../src/config/to-policy.ts";
import { load, problemsOf } from "./support.ts";

describe("session limit settings", () => {
  it("are GoTrue's SESSIONS_TIMEBOX and SESSIONS_INACTIVITY_TIMEOUT, Go durations, 0 meaning none", () => {
    expect(toPolicy(load({})).sessions).toEqual({ timeboxSeconds: null, inactivityTimeoutSeconds: null });
    const set = load({ GOTRUE_SESSIONS_TIMEBOX: "24h", AUTH_SESSIONS_INACTIVITY_TIMEOUT: "30m" });
    expect(toPolicy(set).sessions).toEqual({ timeboxSeconds: 86_400, inactivityTimeoutSeconds: 1800 });
    expect(toPolicy(load({ AUTH_SESSIONS_TIMEBOX: "0" })).sessions.timeboxSeconds).toBeNull();
  });

  it("refuse what is not a duration, and the session settings not built yet", () => {
    expect(problemsOf({ AUTH_SESSIONS_TIMEBOX: "a day" })).toHaveLength(1);
    expect(problemsOf({ AUTH_SESSIONS_SINGLE_PER_USER: "true" })).toEqual([
      "AUTH_SESSIONS_SINGLE_PER_USER: This session setting (one session per user, tags, low-AAL limits) is not built in Latchkey yet; remove this variable",
    ]);
  });
});
