import { describe, expect, it } from "vitest";
import { isAuthError } from "../errors.ts";
import { assertMetadataFits, METADATA_MAX_BYTES, type Metadata, mergeMetadata, metadataBytes } from "./metadata.ts";

describe("metadata updates", () => {
  it("merge shallowly, and a null removes the key", () => {
    expect(mergeMetadata({ a: 1, b: { c: 2 }, d: 4 }, { b: { e: 5 }, d: null, f: [1] })).toEqual({
      a: 1,
      b: { e: 5 },
      f: [1],
    });
  });
});

describe("metadata size", () => {
  it.each<[string, Metadata]>([
    ["an empty object", {}],
    ["ASCII", { name: "Ada", n: 1, nested: { list: [true, null] } }],
    ["two-byte characters", { name: "Zoë Müller" }],
    ["three-byte characters", { price: "€€€", kanji: "日本" }],
    ["four-byte characters (surrogate pairs)", { mood: "😀🎉" }],
    ["escapes", { text: 'line\nbreak "quoted" \\' }],
    ["an unpaired surrogate, which JSON escapes", { odd: "\ud800" }],
  ])("is the UTF-8 length of the JSON text: %s", (_, metadata) => {
    expect(metadataBytes(metadata)).toBe(new TextEncoder().encode(JSON.stringify(metadata)).length);
  });

  const sized = (bytes: number): Metadata => ({ pad: "x".repeat(bytes - metadataBytes({ pad: "" })) });
  const refusal = (work: () => void): unknown => {
    try {
      work();
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it("lets metadata at the limit through and refuses one byte more, naming sizes but not content", () => {
    for (const field of ["user_metadata", "app_metadata"] as const) {
      const max = METADATA_MAX_BYTES[field];
      expect(refusal(() => assertMetadataFits(field, sized(max)))).toBeUndefined();
      const error = refusal(() => assertMetadataFits(field, sized(max + 1)));
      expect(isAuthError(error, "validation_failed")).toBe(true);
      expect((error as Error).message).toBe(`${field} is too large: at most ${max} bytes as JSON, got ${max + 1}`);
    }
    expect(METADATA_MAX_BYTES).toEqual({ user_metadata: 8192, app_metadata: 2048 });
  });

  it("lets a change through that does not grow metadata already over the limit, and refuses one that does", () => {
    const imported = sized(20_000);
    expect(refusal(() => assertMetadataFits("user_metadata", sized(19_000), imported))).toBeUndefined();
    expect(refusal(() => assertMetadataFits("user_metadata", sized(20_000), imported))).toBeUndefined();
    expect(isAuthError(refusal(() => assertMetadataFits("user_metadata", sized(20_001), imported)))).toBe(true);
  });
});
