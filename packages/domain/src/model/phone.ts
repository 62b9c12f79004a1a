import { AuthError } from "../errors.ts";

// A country code and a subscriber number: 7 digits at the least (Niue's +683 and four), 15 at the most. GoTrue
// takes 2; no number that short can receive an SMS.
const E164_DIGITS = /^[1-9]\d{6,14}$/;

/** Accepts a number with or without `+`, with spaces and dashes; returns E.164 with the `+`. */
export function normalizePhone(raw: string): string {
  const digits = raw.trim().replace(/[\s-]/g, "").replace(/^\+/, "");
  if (!E164_DIGITS.test(digits))
    throw new AuthError("validation_failed", "Invalid phone number format (E.164 required)");
  return `+${digits}`;
}
