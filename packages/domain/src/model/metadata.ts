export type Metadata = Readonly<Record<string, unknown>>;

/** Shallow merge, as GoTrue merges user_metadata and app_metadata: a key set to null is removed. */
export function mergeMetadata(current: Metadata, patch: Metadata): Metadata {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}
