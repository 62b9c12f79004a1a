import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { BloomFilter } from "../src/bloom-filter.ts";

/** A random SHA-1 digest, as the range API's hashes are: 40 upper-case hex digits. */
const randomSha1 = () => createHash("sha1").update(randomBytes(16)).digest("hex").toUpperCase();
const sha1s = (count: number) => Array.from({ length: count }, randomSha1);

describe("the bloom filter of SHA-1 digests", () => {
  it("is sized for Supabase Auth's defaults: 100,000 items at 0.0000099", () => {
    const filter = new BloomFilter(100_000, 0.0000099);
    // m = ceil(-n·ln p / (ln 2)²) bits, some 300 kB; k = round(m/n · ln 2)
    expect(filter.bits).toBe(2_398_357);
    expect(filter.hashes).toBe(17);
  });

  it("sets at least one bit per key however loose the rate", () => {
    const filter = new BloomFilter(10, 0.9);
    expect(filter.hashes).toBe(1);
    const key = randomSha1();
    filter.add(key);
    expect(filter.has(key)).toBe(true);
  });

  it("has no false negatives, in either case of hex", () => {
    const filter = new BloomFilter(5_000, 0.001);
    const keys = sha1s(5_000);
    for (const key of keys) filter.add(key);
    expect(keys.filter((key) => !filter.has(key))).toEqual([]);
    expect(keys.filter((key) => !filter.has(key.toLowerCase()))).toEqual([]);
  });

  it("finds non-members at about the configured false-positive rate when full", () => {
    const rate = 0.01;
    const filter = new BloomFilter(10_000, rate);
    for (const key of sha1s(10_000)) filter.add(key);
    const probes = 100_000;
    let falsePositives = 0;
    for (const key of sha1s(probes)) if (filter.has(key)) falsePositives++;
    // Expected 1,000 (σ ≈ 31): the bounds leave room for rounding m and k, not for a broken filter.
    expect(falsePositives / probes).toBeGreaterThan(rate * 0.6);
    expect(falsePositives / probes).toBeLessThan(rate * 1.5);
  });

  it("keeps a whole range of one prefix apart from its other hashes", () => {
    // A range's hashes share their first 5 hex digits and arrive together, as from the range API.
    const filter = new BloomFilter(2_000, 0.001);
    const prefix = "5BAA6";
    const range = (count: number) => Array.from({ length: count }, () => prefix + randomSha1().slice(5));
    for (const key of range(2_000)) filter.add(key);
    const falsePositives = range(20_000).filter((key) => filter.has(key)).length;
    expect(falsePositives / 20_000).toBeLessThan(0.001 * 3);
  });

  it("forgets everything when cleared, and refuses what is not a SHA-1 digest", () => {
    const filter = new BloomFilter(100, 0.01);
    const keys = sha1s(50);
    for (const key of keys) filter.add(key);
    filter.clear();
    expect(keys.filter((key) => filter.has(key))).toEqual([]);
    expect(() => filter.add("5BAA6")).toThrow(TypeError);
    expect(() => filter.has(`${randomSha1().slice(1)}G`)).toThrow(TypeError);
  });

  it("refuses sizes that make no filter", () => {
    expect(() => new BloomFilter(0, 0.01)).toThrow(RangeError);
    expect(() => new BloomFilter(1.5, 0.01)).toThrow(RangeError);
    expect(() => new BloomFilter(100, 0)).toThrow(RangeError);
    expect(() => new BloomFilter(100, 1)).toThrow(RangeError);
  });
});
