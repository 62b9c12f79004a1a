import { describe, expect, it } from "vitest";
import { toPolicy } from "../../src/config/to-policy.ts";
import { load, problemsOf } from "./support.ts";

describe("session limit settings", () => {
  it("are GoTrue's SESSIONS_* durations, 0 meaning none, and its one-session switch, off by default", () => {
    expect(toPolicy(load({})).sessions).toEqual({
      timeboxSeconds: null,
      inactivityTimeoutSeconds: null,
      allowLowAalSeconds: null,
      singlePerUser: false,
    });
    const set = load({
      GOTRUE_SESSIONS_TIMEBOX: "24h",
      AUTH_SESSIONS_INACTIVITY_TIMEOUT: "30m",
      AUTH_SESSIONS_ALLOW_LOW_AAL: "10m",
      AUTH_SESSIONS_SINGLE_PER_USER: "true",
    });
    expect(toPolicy(set).sessions).toEqual({
      timeboxSeconds: 86_400,
      inactivityTimeoutSeconds: 1800,
      allowLowAalSeconds: 600,
      singlePerUser: true,
    });
    expect(toPolicy(load({ AUTH_SESSIONS_TIMEBOX: "0" })).sessions.timeboxSeconds).toBeNull();
    expect(toPolicy(load({ AUTH_SESSIONS_ALLOW_LOW_AAL: "0" })).sessions.allowLowAalSeconds).toBeNull();
  });

  it("refuse what is not a duration, and SESSIONS_TAGS, which changes nothing in Supabase Auth either", () => {
    expect(problemsOf({ AUTH_SESSIONS_TIMEBOX: "a day" })).toHaveLength(1);
    expect(problemsOf({ AUTH_SESSIONS_ALLOW_LOW_AAL: "soon" })).toHaveLength(1);
    expect(problemsOf({ AUTH_SESSIONS_TAGS: "web,mobile" })).toEqual([
      "AUTH_SESSIONS_TAGS: Session tags has no effect in Supabase Auth (no session is ever given a tag), and Latchkey does not take it; remove this variable",
    ]);
  });
});
