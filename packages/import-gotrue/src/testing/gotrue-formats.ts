import { createCipheriv, createHash, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { hash as hashArgon2 } from "@node-rs/argon2";
import { hash as hashBcrypt } from "@node-rs/bcrypt";
import type { GotrueWebAuthnCredential } from "./gotrue-rows.ts";

// What GoTrue writes into its token, secret and password columns, so that the fixture holds what GoTrue would have.

const BASE32_LOWER = "abcdefghijklmnopqrstuvwxyz234567";

/** GoTrue's legacy (v1) refresh token: 12 characters of the lower-case base32 alphabet. */
export function gotrueLegacyRefreshToken(): string {
  return [...randomBytes(12)].map((byte) => BASE32_LOWER[byte % 32]).join("");
}

/** A fresh session HMAC key as GoTrue stores it in `sessions.refresh_token_hmac_key`: 32 bytes, base64url, no padding. */
export function gotrueRefreshTokenHmacKey(): string {
  return randomBytes(32).toString("base64url");
}

function uvarint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = BigInt(value);
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return Buffer.from(bytes);
}

/**
 * GoTrue's v2 refresh token for a session's hmac key (base64url, 32 bytes) and counter, per §7.3: base64url (no
 * padding) of 0x00 ‖ session uuid (16 bytes) ‖ uvarint(counter) ‖ HMAC-SHA256(key, everything before)[:16] ‖
 * SHA-256(everything before)[:4].
 */
export function gotrueV2RefreshToken(sessionId: string, hmacKeyBase64Url: string, counter: number): string {
  if (!Number.isSafeInteger(counter) || counter < 0)
    throw new Error(`counter ${counter} is not a non-negative integer`);
  const prefix = Buffer.concat([Buffer.from([0]), Buffer.from(sessionId.replaceAll("-", ""), "hex"), uvarint(counter)]);
  const signature = createHmac("sha256", Buffer.from(hmacKeyBase64Url, "base64url")).update(prefix).digest();
  const signed = Buffer.concat([prefix, signature.subarray(0, 16)]);
  const checksum = createHash("sha256").update(signed).digest().subarray(0, 4);
  return Buffer.concat([signed, checksum]).toString("base64url");
}

/**
 * GoTrue's sealed column value (keys-otel-captcha-mfa.md D.6), as in `mfa_factors.secret`, `mfa_challenges.otp_code`
 * and `sessions.refresh_token_hmac_key`: {"key_id","alg":"aes-gcm-hkdf","data","nonce"} (standard base64), AES-256-GCM
 * under HKDF-SHA256(ikm = the base64url-decoded 32-byte key, salt empty, info = the row's id).
 */
export function gotrueSealedSecret(rowId: string, secret: string, key: { id: string; keyBase64Url: string }): string {
  const ikm = Buffer.from(key.keyBase64Url, "base64url");
  if (ikm.length !== 32) throw new Error(`key ${JSON.stringify(key.id)} is not 32 bytes of base64url`);
  const rowKey = Buffer.from(hkdfSync("sha256", ikm, Buffer.alloc(0), rowId, 32));
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", rowKey, nonce);
  const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return JSON.stringify({
    key_id: key.id,
    alg: "aes-gcm-hkdf",
    data: data.toString("base64"),
    nonce: nonce.toString("base64"),
  });
}

/**
 * A verified WebAuthn factor's `web_authn_credential` as GoTrue writes it (go-webauthn v0.16's Credential through
 * encoding/json: []byte as standard base64), for a credential of those bytes; an authenticator of no model (AAGUID of
 * zeros) unless told.
 */
export function gotrueWebAuthnCredential(credential: {
  id: Uint8Array;
  publicKey: Uint8Array;
  aaguid?: Uint8Array;
  signCount?: number;
}): GotrueWebAuthnCredential {
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
  return {
    id: base64(credential.id),
    publicKey: base64(credential.publicKey),
    attestationType: "none",
    transport: ["internal"],
    flags: { userPresent: true, userVerified: true, backupEligible: false, backupState: false },
    authenticator: {
      AAGUID: base64(credential.aaguid ?? new Uint8Array(16)),
      signCount: credential.signCount ?? 0,
      cloneWarning: false,
      attachment: "platform",
    },
    attestation: { clientDataJSON: "", clientDataHash: "", authenticatorData: "", publicKeyAlgorithm: -7, object: "" },
  };
}

/** What GoTrue stores for an emailed or texted OTP, in the user's token column and in `one_time_tokens`. */
export function gotrueTokenHash(emailOrPhone: string, otp: string): string {
  return createHash("sha224")
    .update(emailOrPhone + otp)
    .digest("hex");
}

/** A TOTP secret shaped as GoTrue's (pquerna/otp, 160 bits): 32 characters of upper-case base32. */
export function gotrueTotpSecret(): string {
  return [...randomBytes(32)].map((byte) => BASE32_LOWER[byte % 32]?.toUpperCase()).join("");
}

// compat: Go's x/crypto/bcrypt writes $2a$; the computation is the same as $2b$ for passwords under 72 bytes.
export async function gotrueBcrypt(password: string): Promise<string> {
  return (await hashBcrypt(password, 4)).replace(/^\$2b\$/, "$2a$");
}

// @node-rs/argon2's Algorithm is a const enum, which isolated modules cannot read; 2 is Argon2id.
export const gotrueArgon2 = (password: string) => hashArgon2(password, { algorithm: 2, memoryCost: 4096, timeCost: 2 });
