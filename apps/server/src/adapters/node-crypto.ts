import type { Random, Secrets } from "@latchkey/domain";
import { createHmac, hkdfSync, randomBytes, randomInt, randomUUID, timingSafeEqual } from "node:crypto";

export const cryptoRandom: Random = {
  uuid: () => randomUUID(),
  token: (bytes) => randomBytes(bytes).toString("base64url"),
  digits: (length) => Array.from({ length }, () => randomInt(10)).join(""),
};

/**
 * Keyed digests and refresh-token derivation, with keys derived from one master secret (JWT_SECRET). Rotating
 * that secret therefore also retires every stored token: a rotation after a leak signs everyone out, as it should.
 */
export function createSecrets(masterSecret: string): Secrets {
  const subkey = (purpose: string) => Buffer.from(hkdfSync("sha256", masterSecret, "latchkey", purpose, 32));
  const digestKey = subkey("token digest");
  const derivationKey = subkey("refresh token derivation");
  return {
    digest: (value) => createHmac("sha256", digestKey).update(value).digest("base64url"),
    nextRefreshToken: (previous) => createHmac("sha256", derivationKey).update(previous).digest("base64url"),
    equal: (a, b) => {
      const left = Buffer.from(a);
      const right = Buffer.from(b);
      return left.length === right.length && timingSafeEqual(left, right);
    },
  };
}
