import { describe, expect, it } from "vitest";
import { parseGoDuration } from "./go-duration.ts";

describe("parseGoDuration", () => {
  it.each([
    ["0", 0],
    ["300ms", 300],
    ["1.5h", 5_400_000],
    ["1h30m", 5_400_000],
    ["-1.5h", -5_400_000],
    ["+2m", 120_000],
    ["100h30m", 361_800_000],
    ["1h0m0s", 3_600_000],
    [".5s", 500],
    ["1.s", 1000],
    ["1500us", 1.5],
    ["1500µs", 1.5],
    ["1500μs", 1.5],
    ["2ns", 0.000002],
  ])("reads %s as %d ms", (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each(["", "1", "10", "1d", "1 h", "h", ".s", "1.2.3s", "abc", "1e9h", "1h 30m", "-", "3000000h"])(
    "refuses %j, as Go does",
    (text) => {
      expect(parseGoDuration(text)).toBeNull();
    },
  );
});
