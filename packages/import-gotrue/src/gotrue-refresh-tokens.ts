import { createHash, createHmac } from "node:crypto";

// GoTrue's two refresh-token formats (docs/compatibility.md, "Moving from Supabase Auth"). Legacy tokens are rows,
// kept in clear; v2 tokens are no rows at all, only a session's HMAC key and counter, from which the token a client
// holds can be worked out again.

/** Unsigned LEB128, as Go's binary.AppendUvarint writes it. */
function uvarint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = BigInt(value);
  while (rest >= 0x80n) {
    bytes.push(Number((rest & 0x7fn) | 0x80n));
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return Buffer.from(bytes);
}

/**
 * The v2 token of `sessionId` at `counter`: base64url (no padding) of 0x00 ‖ the session's uuid ‖ uvarint(counter)
 * ‖ HMAC-SHA256(key, all before)[:16] ‖ SHA-256(all before)[:4].
 */
export function v2RefreshToken(sessionId: string, hmacKeyBase64Url: string, counter: number): string {
  const key = Buffer.from(hmacKeyBase64Url, "base64url");
  const prefix = Buffer.concat([Buffer.from([0]), Buffer.from(sessionId.replaceAll("-", ""), "hex"), uvarint(counter)]);
  const signed = Buffer.concat([prefix, createHmac("sha256", key).update(prefix).digest().subarray(0, 16)]);
  const checksum = createHash("sha256").update(signed).digest().subarray(0, 4);
  return Buffer.concat([signed, checksum]).toString("base64url");
}

/**
 * A stable uuid for an imported token, from the token itself: importing again finds the same row, and no two tokens
 * share one.
 */
export function importedTokenId(token: string): string {
  const hex = createHash("sha256").update(`gotrue-refresh-token:${token}`).digest("hex");
  // Shaped as a version 8 (custom) uuid, RFC 9562.
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
