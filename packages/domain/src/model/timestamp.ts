/** RFC 3339 with fractional seconds, in UTC, as GoTrue writes timestamps. */
export const timestamp = (date: Date): string => date.toISOString();

/** The key with its timestamp, or nothing: GoTrue omits null timestamps. */
export function optionalTimestamp<K extends string>(key: K, date: Date | null): { [P in K]?: string } {
  return (date === null ? {} : { [key]: timestamp(date) }) as { [P in K]?: string };
}
