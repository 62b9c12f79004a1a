import { AuthError } from "../errors.ts";

// The format check GoTrue applies (checkmail): a permissive local part, then DNS labels.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Validates an email address and returns it lower-cased: addresses are compared case-insensitively. */
export function normalizeEmail(raw: string): string {
  if (raw === "") throw new AuthError("validation_failed", "An email address is required");
  if (raw.length > 255) throw new AuthError("validation_failed", "An email address is too long");
  if (!EMAIL.test(raw)) throw new AuthError("validation_failed", "Unable to validate email address: invalid format");
  return raw.toLowerCase();
}
