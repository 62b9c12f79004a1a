import { describe, expect, it } from "vitest";
import { mergeMetadata } from "./metadata.ts";

describe("metadata updates", () => {
  it("merge shallowly, and a null removes the key", () => {
    expect(mergeMetadata({ a: 1, b: { c: 2 }, d: 4 }, { b: { e: 5 }, d: null, f: [1] })).toEqual({
      a: 1,
      b: { e: 5 },
      f: [1],
    });
  });
});
