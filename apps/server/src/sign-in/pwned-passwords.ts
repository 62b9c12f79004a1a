import { createRangeApiPwnedPasswords } from "@latchkey/adapters-pwned";
import type { PwnedPasswords } from "@latchkey/domain";
import type { Config } from "../config/index.ts";

/** PASSWORD_HIBP_*: the Pwned Passwords range API when leaked-password protection is on, else none. */
export function createConfiguredPwnedPasswords(config: Config): PwnedPasswords | null {
  const { password } = config;
  if (!password.hibpEnabled) return null;
  return createRangeApiPwnedPasswords({ url: password.hibpUrl, userAgent: password.hibpUserAgent });
}
