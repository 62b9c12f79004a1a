/**
 * xs:duration (PnYnMnDTnHnMnS) in seconds, a year counted as 365 days and a month as 30: a cacheDuration has no
 * date to count calendar months from. Written here because the grammar is one regular expression, not worth a
 * dependency. Null for text that is not a duration, a negative one included (a cache cannot last less than nothing).
 */
const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

const DAY = 24 * 60 * 60;
const UNIT_SECONDS = [365 * DAY, 30 * DAY, DAY, 60 * 60, 60, 1] as const;

export function durationSeconds(text: string): number | null {
  const match = DURATION.exec(text.trim());
  // "P" and "PT" alone match the expression yet name no amount: the grammar wants at least one.
  if (!match || text.trim().endsWith("P") || text.trim().endsWith("T")) return null;
  return UNIT_SECONDS.reduce((total, unit, i) => total + Number(match[i + 1] ?? 0) * unit, 0);
}
