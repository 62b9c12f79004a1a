import { describe, expect, it } from "vitest";
import { isAuthError } from "../errors.ts";
import { bannedUntil, parseBanDuration } from "./ban.ts";

describe("ban durations", () => {
  const now = new Date("2026-05-01T00:00:00Z");

  it("bans for a Go duration and lifts the ban with none", () => {
    expect(bannedUntil(parseBanDuration("24h"), now)).toEqual(new Date("2026-05-02T00:00:00Z"));
    expect(bannedUntil(parseBanDuration("1h30m"), now)).toEqual(new Date("2026-05-01T01:30:00Z"));
    expect(bannedUntil(parseBanDuration("none"), now)).toBeNull();
  });

  it.each(["-1h", "abc", "1e9h", "1d", "", "None"])("refuses %j with validation_failed", (text) => {
    let error: unknown;
    try {
      parseBanDuration(text);
    } catch (caught) {
      error = caught;
    }
    expect(isAuthError(error, "validation_failed")).toBe(true);
  });
});
