import { createRangeApiPwnedPasswords, type RangeApiOptions } from "@latchkey/adapters-pwned";
import type { PwnedPasswords } from "@latchkey/domain";
import type { Config } from "../config/index.ts";

/** PASSWORD_HIBP_*: the Pwned Passwords range API when leaked-password protection is on, else none. */
export function createConfiguredPwnedPasswords(config: Config): PwnedPasswords | null {
  if (!config.password.hibpEnabled) return null;
  return createRangeApiPwnedPasswords(rangeApiOptions(config));
}

/** The range API's options from PASSWORD_HIBP_*, with the bloom-filter cache when PASSWORD_HIBP_BLOOM_ENABLED. */
export function rangeApiOptions(config: Config): RangeApiOptions {
  const { password } = config;
  return {
    url: password.hibpUrl,
    userAgent: password.hibpUserAgent,
    ...(password.hibpBloomEnabled
      ? { bloom: { items: password.hibpBloomItems, falsePositives: password.hibpBloomFalsePositives } }
      : {}),
  };
}
