import type { CleanUpPass } from "@latchkey/domain";
import { describe, expect, it } from "vitest";
import { startCleanupWorker } from "../../src/maintenance/cleanup-worker.ts";
import { capturedLog } from "../support/captured-log.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const none: CleanUpPass = { deleted: {}, more: false };

describe("the clean-up worker", () => {
  it("runs a pass every interval, and the next at once while a pass leaves rows behind", async () => {
    const { log } = capturedLog();
    const passes: number[] = [];
    const answers: CleanUpPass[] = [
      { deleted: { rotated_refresh_tokens: 5000 }, more: true },
      { deleted: { rotated_refresh_tokens: 5000 }, more: true },
      { deleted: { rotated_refresh_tokens: 12 }, more: false },
    ];
    const started = Date.now();
    const worker = startCleanupWorker({
      pass: async () => {
        passes.push(Date.now() - started);
        return answers.shift() ?? none;
      },
      intervalMs: 300,
      firstDelayMs: 0,
      log,
    });
    await sleep(450);
    await worker.stop();
    // Three back to back, then one after the interval.
    expect(passes).toHaveLength(4);
    expect(passes[2]!).toBeLessThan(250);
    expect(passes[3]! - passes[2]!).toBeGreaterThanOrEqual(290);
  });

  it("says once that the database is away, once that it is back, and goes on meanwhile", async () => {
    const { log, lines } = capturedLog();
    let calls = 0;
    const worker = startCleanupWorker({
      pass: async () => {
        calls++;
        if (calls <= 3) throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
        return none;
      },
      intervalMs: 20,
      firstDelayMs: 0,
      log,
    });
    await sleep(200);
    await worker.stop();
    const cleanupLines = lines.filter((line) => line["component"] === "cleanup");
    expect(cleanupLines.map((line) => line["msg"])).toEqual([
      "cleanup: stale rows cannot be deleted; the clean-up goes on when the database answers",
      expect.stringMatching(/^cleanup: deleting stale rows again after /),
    ]);
    expect(cleanupLines[0]).toMatchObject({ code: "ECONNREFUSED" });
    expect(calls).toBeGreaterThan(4);
  });

  it("stops: tells the pass under way to stop, waits for it, and runs no more", async () => {
    const { log } = capturedLog();
    let calls = 0;
    let finished = false;
    let toldToStop = false;
    const worker = startCleanupWorker({
      pass: async (stopping) => {
        calls++;
        await sleep(100);
        toldToStop = stopping();
        finished = true;
        return { deleted: {}, more: true };
      },
      intervalMs: 10,
      firstDelayMs: 0,
      log,
    });
    await sleep(30);
    await worker.stop();
    expect(finished).toBe(true);
    expect(toldToStop).toBe(true);
    await sleep(50);
    expect(calls).toBe(1);
  });
});
