/**
 * A timestamptz as PostgreSQL's json functions write it: ISO 8601 with the session time zone's offset, which Date
 * parses (extra fractional digits, PostgreSQL's microseconds, are dropped).
 */
export const fromTimestampJson = (value: string): Date => new Date(value);

export const fromOptionalTimestampJson = (value: string | null): Date | null =>
  value === null ? null : new Date(value);
