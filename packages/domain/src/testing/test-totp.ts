import { createHmac, timingSafeEqual } from "node:crypto";
import type { TotpAuthenticator } from "../ports/totp.ts";

// RFC 6238 over node:crypto, for tests: the production adapter uses a library (adapters-crypto), and tests compute
// codes the way an authenticator app does.

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const TOTP_STEP_SECONDS = 30;

function base32Decode(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const char of text.replace(/=+$/, "").toUpperCase()) {
    value = (value << 5) | ALPHABET.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** The 6-digit code of `secret` (base32) for time step `step`. */
export function totpCode(secret: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const digest = createHmac("sha1", base32Decode(secret)).update(counter).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, "0");
}

/** The time step of `at`. */
export function totpStep(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_STEP_SECONDS);
}

/** A TotpAuthenticator for tests: real codes, fixed-format URIs, and a QR stand-in that is no QR code. */
export class TestTotp implements TotpAuthenticator {
  private counter = 0;

  newSecret(): string {
    this.counter += 1;
    // 20 bytes, base32: deterministic per instance, distinct per call.
    const bytes = createHmac("sha1", "test-totp").update(String(this.counter)).digest();
    let bits = 0;
    let value = 0;
    let out = "";
    for (const byte of bytes) {
      value = (value << 8) | byte;
      bits += 8;
      while (bits >= 5) {
        out += ALPHABET[(value >>> (bits - 5)) & 31];
        bits -= 5;
      }
    }
    return out;
  }

  enrollment(input: { secret: string; issuer: string; accountName: string }) {
    const issuer = encodeURIComponent(input.issuer);
    const uri = `otpauth://totp/${issuer}:${input.accountName}?secret=${input.secret}&issuer=${issuer}&algorithm=SHA1&digits=6&period=30`;
    return { uri, qrCode: `<svg data-uri="${uri.replaceAll("&", "&amp;")}"/>` };
  }

  matchingStep(secret: string, code: string, at: Date): number | null {
    const now = totpStep(at);
    for (const step of [now - 1, now, now + 1]) {
      const expected = Buffer.from(totpCode(secret, step));
      const given = Buffer.from(code);
      if (given.length === expected.length && timingSafeEqual(given, expected)) return step;
    }
    return null;
  }
}
