/** RFC 3339 with fractional seconds, in UTC, as GoTrue writes timestamps. */
export const timestamp = (date: Date): string => date.toISOString();

/**
 * The timestamp, or undefined for none: GoTrue omits null timestamps, and JSON.stringify leaves out a key whose value
 * is undefined.
 */
export const optionalTimestamp = (date: Date | null): string | undefined =>
  date === null ? undefined : timestamp(date);
