import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { Secrets } from "../ports/secrets.ts";

/**
 * Keyed digests with a fixed test key. Sealing is reversible encoding with a keyed tag: tamper-evident and
 * unreadable at a glance, which is all unit tests need (the server's adapter encrypts).
 */
export function createTestSecrets(key = "test-secrets-key"): Secrets {
  const mac = (label: string, value: string) =>
    createHmac("sha256", key).update(label).update(value).digest("base64url");
  return {
    digest: (value) => mac("digest:", value),
    nextRefreshToken: (previous) => mac("next-refresh-token:", previous),
    equal: (a, b) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b)),
    seal: (plaintext) => {
      const body = Buffer.from(plaintext).toString("base64url");
      return `${mac("seal:", body)}.${body}`;
    },
    open: (sealed) => {
      const [tag, body = ""] = sealed.split(".");
      if (tag !== mac("seal:", body)) throw new Error("sealed under another key, or damaged");
      return Buffer.from(body, "base64url").toString();
    },
    sha256: (value) => createHash("sha256").update(value).digest("base64url"),
  };
}
