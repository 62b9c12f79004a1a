import { AuthError } from "../errors.ts";

const E164_DIGITS = /^[1-9]\d{1,14}$/;

/** Accepts a number with or without `+`, with spaces and dashes; returns E.164 with the `+`. */
export function normalizePhone(raw: string): string {
  const digits = raw.trim().replace(/[\s-]/g, "").replace(/^\+/, "");
  if (!E164_DIGITS.test(digits)) throw new AuthError("validation_failed", "Invalid phone number format (E.164 required)");
  return `+${digits}`;
}
