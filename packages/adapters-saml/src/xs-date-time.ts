/** xs:dateTime, the zone optional (read as UTC, as the host's own zone would make the answer depend on the host). */
const DATE_TIME = /^(\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

/** The instant `text` names, or null for anything not an xs:dateTime. */
export function parseDateTime(text: string): Date | null {
  const match = DATE_TIME.exec(text.trim());
  // Date reads milliseconds at most: finer fractions are cut, not rounded.
  const date = match ? new Date(`${match[1]}${(match[2] ?? "").slice(0, 4)}${match[3] ?? "Z"}`) : null;
  return date === null || Number.isNaN(date.getTime()) ? null : date;
}
