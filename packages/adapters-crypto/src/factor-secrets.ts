import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { FactorSecrets } from "@latchkey/domain";

// GoTrue's encrypted-column format (internal/crypto EncryptedString), so factor rows imported from GoTrue open here
// and ours would open there: {"key_id","alg":"aes-gcm-hkdf","data":base64(ciphertext‖tag),"nonce":base64(12 bytes)},
// AES-256-GCM under HKDF-SHA256(key, no salt, info = the row's id). The per-row key also keeps each key far below
// GCM's 2^32 random-nonce limit.
const ALGORITHM = "aes-gcm-hkdf";
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export interface FactorSecretsOptions {
  /** Written with every sealed value, and how open() finds the key again (SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID). */
  readonly keyId: string;
  /** 32 bytes; seals, and opens what carries `keyId`. */
  readonly key: Buffer;
  /** Retired keys by id, that still open what they sealed (SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS). */
  readonly decryptionKeys?: ReadonlyMap<string, Buffer>;
}

interface Sealed {
  key_id: string;
  alg: string;
  data: string;
  nonce: string;
}

const rowKey = (key: Buffer, factorId: string) =>
  Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), factorId, KEY_BYTES));

const STD_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function parseSealed(sealed: string): Sealed {
  let value: unknown;
  try {
    value = JSON.parse(sealed);
  } catch {
    throw new Error("factor secret: not a sealed value (malformed JSON)");
  }
  const fields = value as Partial<Record<keyof Sealed, unknown>> | null;
  if (
    typeof fields !== "object" ||
    fields === null ||
    typeof fields.key_id !== "string" ||
    typeof fields.alg !== "string" ||
    typeof fields.data !== "string" ||
    typeof fields.nonce !== "string"
  ) {
    throw new Error("factor secret: not a sealed value (expected key_id, alg, data and nonce)");
  }
  if (fields.alg !== ALGORITHM) throw new Error(`factor secret: unsupported algorithm ${JSON.stringify(fields.alg)}`);
  // Buffer.from skips what is not base64 instead of failing; check first, so corruption reads as such.
  if (!STD_BASE64.test(fields.data) || !STD_BASE64.test(fields.nonce)) {
    throw new Error("factor secret: data or nonce is not base64");
  }
  return fields as Sealed;
}

/**
 * TOTP secrets sealed in GoTrue's format, under a key of their own and bound to the factor's id (the HKDF info), so
 * a value copied to another row fails authentication. Seals with the current key; opens with whichever key the
 * value names, so keys can be rotated by adding the old one to `decryptionKeys`.
 */
export function createFactorSecrets(options: FactorSecretsOptions): FactorSecrets {
  const keys = new Map(options.decryptionKeys);
  keys.set(options.keyId, options.key);
  for (const [id, key] of keys) {
    if (key.length !== KEY_BYTES) throw new Error(`factor secret key ${JSON.stringify(id)} is not ${KEY_BYTES} bytes`);
  }

  return {
    seal(factorId, secret) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv("aes-256-gcm", rowKey(options.key, factorId), nonce);
      const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final(), cipher.getAuthTag()]);
      const sealed: Sealed = {
        key_id: options.keyId,
        alg: ALGORITHM,
        data: data.toString("base64"),
        nonce: nonce.toString("base64"),
      };
      return JSON.stringify(sealed);
    },

    open(factorId, text) {
      const sealed = parseSealed(text);
      const key = keys.get(sealed.key_id);
      if (!key) {
        throw new Error(`factor secret: sealed under key ${JSON.stringify(sealed.key_id)}, which is not configured`);
      }
      const nonce = Buffer.from(sealed.nonce, "base64");
      const data = Buffer.from(sealed.data, "base64");
      if (nonce.length !== NONCE_BYTES || data.length < TAG_BYTES) {
        throw new Error("factor secret: nonce or data has the wrong length");
      }
      const decipher = createDecipheriv("aes-256-gcm", rowKey(key, factorId), nonce);
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]).toString(
          "utf8",
        );
      } catch {
        throw new Error("factor secret: authentication failed (another factor's value, another key, or tampered)");
      }
    },
  };
}

/**
 * A 32-byte factor-secrets key derived from another secret (DB_SECRET), for when no dedicated key is configured.
 * Its own HKDF info keeps it independent of anything else derived from that secret.
 */
export function deriveFactorKey(secret: string): Buffer {
  return Buffer.from(
    hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), "latchkey mfa factor secrets", 32),
  );
}

/**
 * A 32-byte key written in base64url, as GoTrue's SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY is (standard base64, with
 * or without padding, is accepted too). Throws naming what is wrong.
 */
export function parseEncryptionKey(text: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9_+/-]+={0,2}$/.test(trimmed)) {
    throw new Error("the encryption key is not base64url (or base64)");
  }
  const key = Buffer.from(trimmed.replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_"), "base64url");
  if (key.length !== KEY_BYTES) {
    throw new Error(`the encryption key is ${key.length} bytes once decoded; it must be ${KEY_BYTES} (256 bits)`);
  }
  return key;
}
