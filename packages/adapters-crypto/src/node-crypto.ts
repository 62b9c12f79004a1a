import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  randomInt,
  randomUUID,
  timingSafeEqual,
} from "node:crypto";
import type { Random, Secrets } from "@latchkey/domain";

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
  const sealingKey = subkey("sealing");
  return {
    // AES-256-GCM: a fresh 96-bit nonce each time; nonce, tag and ciphertext travel together.
    seal: (plaintext) => {
      const nonce = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", sealingKey, nonce);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64url");
    },
    open: (sealed) => {
      const bytes = Buffer.from(sealed, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", sealingKey, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
    },
    digest: (value) => createHmac("sha256", digestKey).update(value).digest("base64url"),
    nextRefreshToken: (previous) => createHmac("sha256", derivationKey).update(previous).digest("base64url"),
    sha256: (value) => createHash("sha256").update(value).digest("base64url"),
    equal: (a, b) => {
      const left = Buffer.from(a);
      const right = Buffer.from(b);
      return left.length === right.length && timingSafeEqual(left, right);
    },
  };
}
