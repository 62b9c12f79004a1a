import { describe, expect, it } from "vitest";
import { createDurationEstimate } from "./duration-estimate.ts";

describe("duration estimate", () => {
  it("starts at zero, takes the first observation, then moves a fifth of the way towards each new one", () => {
    const estimate = createDurationEstimate();
    expect(estimate.milliseconds()).toBe(0);
    estimate.observe(20);
    expect(estimate.milliseconds()).toBe(20);
    estimate.observe(30);
    expect(estimate.milliseconds()).toBeCloseTo(22);
    for (let i = 0; i < 100; i++) estimate.observe(40);
    expect(estimate.milliseconds()).toBeCloseTo(40, 3);
  });
});
