import type { Web3Message } from "@latchkey/domain";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";

/** Solana's off-chain message signing domain: 0xff then "solana offchain". */
const OFFCHAIN_PREFIX = new Uint8Array([0xff, ...new TextEncoder().encode("solana offchain")]);

/**
 * The message's address when `signature` (64 bytes, base64 or base64url, padded or not) is its ed25519 key's
 * signature of the message's text, or of the message in Solana's off-chain message format (what a Ledger signs);
 * null otherwise.
 */
export async function verifySolanaSignature(message: Web3Message, signature: string): Promise<string | null> {
  const publicKey = decodeBase58(message.address);
  const bytes = Buffer.from(signature.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, ""), "base64url");
  if (publicKey === null || publicKey.length !== 32 || bytes.length !== 64) return null;
  const text = new TextEncoder().encode(message.raw);
  const verifies = (signed: Uint8Array) => {
    try {
      return ed25519.verify(bytes, signed, publicKey, { zip215: false });
    } catch {
      return false;
    }
  };
  if (verifies(text)) return message.address;
  const offchain = offchainMessage(message.domain, publicKey, text);
  return offchain !== null && verifies(offchain) ? message.address : null;
}

function decodeBase58(text: string): Uint8Array | null {
  try {
    return base58.decode(text);
  } catch {
    return null;
  }
}

/**
 * The message as a Ledger signs it (Solana's off-chain message signing, version 0): the signing domain, the
 * version, the application domain (the message's, 32 bytes, cut or padded with zeros), the format (ASCII), one
 * signer and its key, the length (2 bytes, little-endian), then the text. Supabase Auth takes this form too.
 */
export function offchainMessage(domain: string, publicKey: Uint8Array, text: Uint8Array): Uint8Array | null {
  if (text.length > 0xffff) return null;
  const applicationDomain = new Uint8Array(32);
  applicationDomain.set(new TextEncoder().encode(domain).subarray(0, 32));
  const length = new Uint8Array([text.length & 0xff, text.length >> 8]);
  return new Uint8Array([
    ...OFFCHAIN_PREFIX,
    0, // version
    ...applicationDomain,
    0, // message format: restricted ASCII
    1, // signers
    ...publicKey,
    ...length,
    ...text,
  ]);
}
