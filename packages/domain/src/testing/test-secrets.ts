import { createHmac, timingSafeEqual } from "node:crypto";
import type { Secrets } from "../ports/secrets.ts";

/** Keyed digests with a fixed test key. */
export function createTestSecrets(key = "test-secrets-key"): Secrets {
  const mac = (label: string, value: string) => createHmac("sha256", key).update(label).update(value).digest("base64url");
  return {
    digest: (value) => mac("digest:", value),
    nextRefreshToken: (previous) => mac("next-refresh-token:", previous),
    equal: (a, b) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b)),
  };
}
