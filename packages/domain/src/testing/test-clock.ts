import type { Clock } from "../ports/clock.ts";

/** A clock that moves only when told to. */
export class TestClock implements Clock {
  private current: number;

  constructor(start: Date = new Date("2026-01-01T00:00:00.000Z")) {
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  /** Moves the clock instead of waiting. */
  async sleep(milliseconds: number): Promise<void> {
    if (milliseconds > 0) this.current += milliseconds;
  }

  advance(by: { seconds?: number; minutes?: number; hours?: number; milliseconds?: number }): void {
    this.current +=
      (by.milliseconds ?? 0) + (by.seconds ?? 0) * 1_000 + (by.minutes ?? 0) * 60_000 + (by.hours ?? 0) * 3_600_000;
  }
}
