// Reading GoTrue's columns, which differ across its versions: a value may be missing, NULL, '' or JSON as text.

/** The column's text, or null when it is missing, NULL or blank (GoTrue's token columns default to ''). */
export function nonEmpty(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  return text.trim() === "" ? null : text;
}

export function dateOf(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(String(value));
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A json or jsonb column's object (`json` may arrive as text); anything else is an empty object. */
export function objectOf(value: unknown): Readonly<Record<string, unknown>> {
  if (typeof value === "string") {
    try {
      return objectOf(JSON.parse(value));
    } catch {
      return {};
    }
  }
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
