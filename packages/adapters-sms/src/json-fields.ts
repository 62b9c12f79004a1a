/** The value as a JSON object's fields, or undefined when it is not an object. */
export function objectOf(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The first element of a JSON array, when the value is a non-empty array. */
export function firstOf(value: unknown): unknown {
  return Array.isArray(value) ? (value as readonly unknown[])[0] : undefined;
}

/** A string or number field as text (providers send codes as either); undefined for anything else, null included. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return undefined;
}
