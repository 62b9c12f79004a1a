/**
 * Whether an id_token's `nonce` is the SHA-256, in lower-case hex, of the raw nonce the app posted: apps give the
 * provider the hash and the server the raw value (GoTrue's rule). `sha256` is Secrets.sha256 (base64url), so the
 * token's hex is turned into base64url to compare in constant time with `equal`.
 */
export function nonceMatches(
  rawNonce: string,
  tokenNonce: string,
  sha256: (value: string) => string,
  equal: (a: string, b: string) => boolean,
): boolean {
  if (!/^[0-9a-f]{64}$/.test(tokenNonce)) return false;
  return equal(hexToBase64Url(tokenNonce), sha256(rawNonce));
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Base64url without padding of the bytes a hex string spells. */
function hexToBase64Url(hex: string): string {
  const bytes = hex.match(/../g)!.map((pair) => Number.parseInt(pair, 16));
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const [a, b, c] = [bytes[i]!, bytes[i + 1], bytes[i + 2]];
    const chunk = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += ALPHABET[(chunk >> 18) & 63]! + ALPHABET[(chunk >> 12) & 63]!;
    if (b !== undefined) out += ALPHABET[(chunk >> 6) & 63]!;
    if (c !== undefined) out += ALPHABET[chunk & 63]!;
  }
  return out;
}
