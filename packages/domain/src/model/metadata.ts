import { AuthError } from "../errors.ts";

export type Metadata = Readonly<Record<string, unknown>>;

/** Whether two JSON values are the same, whatever the order of their keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every(
    (key) =>
      Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/** Shallow merge, as GoTrue merges user_metadata and app_metadata: a key set to null is removed. */
export function mergeMetadata(current: Metadata, patch: Metadata): Metadata {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * The most bytes each kind of metadata may take, as UTF-8 JSON text. Both ride in every access token, and the token
 * in the Authorization header: together they keep a token well inside the 16 KiB a request's headers may take
 * (docs/compatibility.md, Metadata size limits). GoTrue has no such limits.
 */
export const METADATA_MAX_BYTES = { user_metadata: 8192, app_metadata: 2048 } as const;
export type MetadataField = keyof typeof METADATA_MAX_BYTES;

/** The size of metadata as a token carries it: the UTF-8 bytes of its JSON text. */
export function metadataBytes(metadata: Metadata): number {
  const json = JSON.stringify(metadata);
  let bytes = 0;
  for (let i = 0; i < json.length; i++) {
    const unit = json.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      // A surrogate pair is one code point of 4 bytes; JSON.stringify escapes any unpaired one as ASCII.
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Refuses `next`, the metadata a change leaves (after merging), when it is over its field's limit. Measured on the
 * result, so small updates cannot add up past the limit. A change that does not grow metadata already over it
 * (`current`, imported from elsewhere) is let through, so that it can be trimmed.
 */
export function assertMetadataFits(field: MetadataField, next: Metadata, current?: Metadata): void {
  const max = METADATA_MAX_BYTES[field];
  const size = metadataBytes(next);
  if (size <= max || (current !== undefined && size <= metadataBytes(current))) return;
  throw new AuthError("validation_failed", `${field} is too large: at most ${max} bytes as JSON, got ${size}`);
}

/** `patch` merged into `current`, refused when the result is over the field's limit (see assertMetadataFits). */
export function mergeWithinLimit(field: MetadataField, current: Metadata, patch: Metadata): Metadata {
  const merged = mergeMetadata(current, patch);
  assertMetadataFits(field, merged, current);
  return merged;
}
