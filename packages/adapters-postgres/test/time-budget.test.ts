import { describe, expect, it } from "vitest";
import { createTimeBudget, DeadlinePassed, timeoutSettings } from "../src/drivers/time-budget.ts";

describe("the time budget of database work", () => {
  it("sets the lock's timeout a tenth shorter than the statement's, and none for 0", () => {
    expect(timeoutSettings("SESSION", 30_000)).toBe(
      "SET SESSION statement_timeout = 30000; SET SESSION lock_timeout = 27000",
    );
    expect(timeoutSettings("LOCAL", 0.4)).toBe("SET LOCAL statement_timeout = 1; SET LOCAL lock_timeout = 1");
    expect(timeoutSettings("LOCAL", 0)).toBe("SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0");
  });

  it("has no limits without a bound or a deadline", () => {
    const budget = createTimeBudget({});
    expect(budget.sessionSettings).toBeUndefined();
    expect(budget.deadlineAt()).toBeUndefined();
    expect(budget.begin(undefined)).toEqual({ settings: undefined, clock: undefined });
    expect(budget.unbounded).toBeUndefined();
  });

  it("gives work outside a request the whole bound, on the connection's own timeouts", () => {
    const budget = createTimeBudget({ timeoutMs: 10_000 });
    const deadlineAt = budget.deadlineAt()!;
    expect(deadlineAt - Date.now()).toBeGreaterThan(9_900);
    expect(budget.sessionFits(deadlineAt)).toBe(true);
    expect(budget.begin(deadlineAt)).toEqual({ settings: undefined, clock: { deadlineAt, allowedMs: 10_000 } });
  });

  it("sets what is left once less than nine tenths of the bound is, and lowers it as time runs out", () => {
    let deadline = Date.now() + 5_000;
    const budget = createTimeBudget({ timeoutMs: 10_000 });
    const deadlineAt = budget.deadlineAt(deadline)!;
    expect(deadlineAt).toBe(deadline);
    expect(budget.sessionFits(deadlineAt)).toBe(false);
    const { settings, clock } = budget.begin(deadlineAt);
    expect(settings).toMatch(/^SET LOCAL statement_timeout = (49\d\d|5000); SET LOCAL lock_timeout = \d+$/);
    // Within a tenth of the bound of what the connection allows: nothing to set.
    expect(budget.beforeStatement(clock!)).toBeUndefined();
    clock!.allowedMs = 7_000;
    expect(budget.beforeStatement(clock!)).toMatch(/^SET LOCAL statement_timeout = /);
    expect(clock!.allowedMs).toBeLessThanOrEqual(5_000);
    deadline = Date.now() - 1;
    expect(() => budget.begin(budget.deadlineAt(deadline)!)).toThrow(DeadlinePassed);
    expect(() => budget.sessionFits(budget.deadlineAt(deadline)!)).toThrow(DeadlinePassed);
    expect(() => budget.beforeStatement({ deadlineAt: deadline, allowedMs: 1_000 })).toThrow(DeadlinePassed);
  });

  it("refuses a bound that is not above 0", () => {
    expect(() => createTimeBudget({ timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});
