import { createHash } from "node:crypto";
import type { Web3Chain, Web3Verifier } from "../ports/web3.ts";

/**
 * A signature the fake verifier takes as `address`'s over `message`, in the chain's encoding (0x and 130 hex
 * digits; 64 bytes in base64url), so that it passes the domain's checks of its shape. Made with another address, it
 * is a signature by another key.
 */
export function fakeWeb3Signature(chain: Web3Chain, address: string, message: string): string {
  const digest = createHash("sha512").update(`${chain}\n${address}\n${message}`).digest();
  return chain === "ethereum" ? `0x${digest.toString("hex")}1b` : digest.toString("base64url");
}

/** Web3Verifier for the domain's tests: the signer is the message's address when fakeWeb3Signature made it. */
export const fakeWeb3Verifier: Web3Verifier = {
  signerOf: async ({ chain, message, signature }) => {
    const expected = fakeWeb3Signature(chain, message.address, message.raw);
    const posted =
      chain === "solana" ? signature.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "") : signature;
    return posted === expected ? message.address : null;
  },
};
