import type { Web3Message } from "@latchkey/domain";
import { getAddress, isHex, recoverMessageAddress } from "viem";

/**
 * The message's address, EIP-55 checksummed, when `signature` (`0x`, r, s and v: 65 bytes, v 0/1 or 27/28) is its
 * key's EIP-191 signature of the message's text; null otherwise. The address in the message may be written in any
 * case, as Supabase Auth takes it; the identity names it checksummed, so one wallet is one identity however a
 * client spells it.
 */
export async function verifyEthereumSignature(message: Web3Message, signature: string): Promise<string | null> {
  // Supabase Auth decodes the signature with go-ethereum's hexutil, which wants the 0x.
  if (!signature.startsWith("0x") || signature.length !== 132 || !isHex(signature)) return null;
  let recovered: string;
  try {
    recovered = await recoverMessageAddress({ message: message.raw, signature });
  } catch {
    return null;
  }
  const claimed = getAddress(message.address.toLowerCase());
  return recovered === claimed ? claimed : null;
}
