import { beforeEach, describe, it } from "vitest";

// Tests that need what a machine may lack (a PostgreSQL server, Redis, a program) are skipped there with a reason:
// `missing`, undefined when the machine has it. The run's summary lists each reason (test/support/
// run-summary-reporter.ts), so a skip is seen for what it is. A single test says it with `context.skip(reason)`.

/**
 * `describe(name, body)` where the machine has what the block needs; else, in its place, one skipped test saying
 * what is missing, so that none of the block's hooks runs without it.
 */
export function describeIfAvailable(missing: string | undefined, name: string, body: () => void): void {
  if (missing === undefined) describe(name, body);
  else describe(name, () => it("runs where the machine has what it needs", (context) => context.skip(missing)));
}

/**
 * Skips every test of the enclosing describe block (or, at the top, of the file) when `missing` is set. The block's
 * beforeAll hooks still run: one that needs what is missing must return early itself.
 */
export function skipAllIfMissing(missing: string | undefined): void {
  if (missing !== undefined) beforeEach((context) => context.skip(missing));
}
