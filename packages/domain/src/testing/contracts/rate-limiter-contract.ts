import { describe, expect, it } from "vitest";
import type { RateLimiter } from "../../ports/rate-limiter.ts";

/**
 * What every rate limiter must do. `advance` moves the limiter's notion of time forward (a test clock for the
 * in-memory one; real waiting for a store with its own clock, so keep windows short there).
 */
export function describeRateLimiterContract(
  name: string,
  setup: () => Promise<{ limiter: RateLimiter; advance(seconds: number): Promise<void>; close?(): Promise<void> }>,
): void {
  describe(`${name}: rate limiter contract`, () => {
    const key = () => `contract:${Math.random().toString(36).slice(2)}`;

    it("allows up to the limit in a window, then refuses with the seconds left", async () => {
      const { limiter, close } = await setup();
      const k = key();
      for (let i = 0; i < 3; i++) expect(await limiter.consume(k, 3, 60)).toEqual({ allowed: true });
      const refused = await limiter.consume(k, 3, 60);
      expect(refused.allowed).toBe(false);
      if (!refused.allowed) {
        expect(refused.retryAfterSeconds).toBeGreaterThan(0);
        expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
      }
      await close?.();
    });

    it("keeps keys apart", async () => {
      const { limiter, close } = await setup();
      const [a, b] = [key(), key()];
      expect(await limiter.consume(a, 1, 60)).toEqual({ allowed: true });
      expect((await limiter.consume(a, 1, 60)).allowed).toBe(false);
      expect(await limiter.consume(b, 1, 60)).toEqual({ allowed: true });
      await close?.();
    });

    it("starts a new window once the old one is over", async () => {
      const { limiter, advance, close } = await setup();
      const k = key();
      expect(await limiter.consume(k, 1, 1)).toEqual({ allowed: true });
      expect((await limiter.consume(k, 1, 1)).allowed).toBe(false);
      await advance(1.1);
      expect(await limiter.consume(k, 1, 1)).toEqual({ allowed: true });
      await close?.();
    });

    it("peeks without counting: whether one more event would be allowed, and when the window ends", async () => {
      const { limiter, advance, close } = await setup();
      const k = key();
      expect(await limiter.peek(k, 2)).toEqual({ allowed: true });
      expect(await limiter.consume(k, 2, 1)).toEqual({ allowed: true });
      for (let i = 0; i < 5; i++) expect(await limiter.peek(k, 2)).toEqual({ allowed: true });
      expect(await limiter.consume(k, 2, 1)).toEqual({ allowed: true });
      const refused = await limiter.peek(k, 2);
      expect(refused).toEqual({ allowed: false, retryAfterSeconds: 1 });
      expect(await limiter.peek(k, 3)).toEqual({ allowed: true });
      await advance(1.1);
      expect(await limiter.peek(k, 2)).toEqual({ allowed: true });
      await close?.();
    });

    it("reads what a key's window holds without counting: its events and the whole seconds left", async () => {
      const { limiter, advance, close } = await setup();
      const k = key();
      expect(await limiter.counted(k)).toEqual({ events: 0, secondsLeft: 0 });
      await limiter.consume(k, 5, 60);
      await limiter.consume(k, 5, 60);
      const counted = await limiter.counted(k);
      expect(counted.events).toBe(2);
      expect(counted.secondsLeft).toBeGreaterThan(55);
      expect(counted.secondsLeft).toBeLessThanOrEqual(60);
      expect((await limiter.counted(k)).events).toBe(2);
      const short = key();
      await limiter.consume(short, 5, 1);
      expect(await limiter.counted(short)).toEqual({ events: 1, secondsLeft: 1 });
      await advance(1.1);
      expect(await limiter.counted(short)).toEqual({ events: 0, secondsLeft: 0 });
      await close?.();
    });

    it("resets keys at once, the next event starting a new window, and leaves other keys alone", async () => {
      const { limiter, close } = await setup();
      const [a, b, c] = [key(), key(), key()];
      for (const k of [a, b, c]) {
        await limiter.consume(k, 1, 60);
        expect((await limiter.consume(k, 1, 60)).allowed).toBe(false);
      }
      await limiter.reset([a, b, key()]);
      await limiter.reset([]);
      expect(await limiter.counted(a)).toEqual({ events: 0, secondsLeft: 0 });
      expect(await limiter.peek(b, 1)).toEqual({ allowed: true });
      expect(await limiter.consume(a, 1, 60)).toEqual({ allowed: true });
      expect((await limiter.consume(a, 1, 60)).allowed).toBe(false);
      expect((await limiter.counted(c)).events).toBe(2);
      expect((await limiter.peek(c, 1)).allowed).toBe(false);
      await close?.();
    });

    it("takes back one event at a time, never below none, and keeps the window's end", async () => {
      const { limiter, close } = await setup();
      const [k, other] = [key(), key()];
      for (let i = 0; i < 3; i++) await limiter.consume(k, 2, 60);
      expect((await limiter.consume(k, 2, 60)).allowed).toBe(false);
      const before = await limiter.counted(k);
      await limiter.refund(k);
      await limiter.refund(k);
      expect(await limiter.counted(k)).toEqual({ events: before.events - 2, secondsLeft: before.secondsLeft });
      expect((await limiter.peek(k, 2)).allowed).toBe(false);
      await limiter.refund(k);
      expect(await limiter.peek(k, 2)).toEqual({ allowed: true });
      await limiter.refund(k);
      await limiter.refund(k);
      expect((await limiter.counted(k)).events).toBe(0);
      expect(await limiter.consume(k, 1, 60)).toEqual({ allowed: true });
      await limiter.refund(other);
      expect(await limiter.counted(other)).toEqual({ events: 0, secondsLeft: 0 });
      await close?.();
    });

    it("counts concurrent events exactly", async () => {
      const { limiter, close } = await setup();
      const k = key();
      const decisions = await Promise.all(Array.from({ length: 20 }, () => limiter.consume(k, 5, 60)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
      await close?.();
    });
  });
}
