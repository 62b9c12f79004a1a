import type { Web3Chain, Web3Message } from "../model/web3-message.ts";

export type { Web3Chain, Web3Message, Web3MessageUri } from "../model/web3-message.ts";

/**
 * Checks the signatures of Web3 sign-in messages (POST /token?grant_type=web3): Sign-In-With-Ethereum's (secp256k1,
 * EIP-191 personal_sign) and Sign-In-With-Solana's (ed25519). The message is parsed by the domain
 * (model/web3-message.ts); what it says is the domain's to judge.
 */
export interface Web3Verifier {
  /**
   * The address that signed `message.raw`, as identities name it (EIP-55 for Ethereum, the base58 key for
   * Solana), when `signature` is by the key of the message's address; null for any other signature, or one that
   * cannot be read. `signature` is as the client posted it: `0x` and 130 hex digits (r, s, v) for Ethereum; 64
   * bytes in base64 or base64url, padded or not, for Solana, over the message itself or over it in Solana's
   * off-chain message format (Ledger's).
   */
  signerOf(input: {
    readonly chain: Web3Chain;
    readonly message: Web3Message;
    readonly signature: string;
  }): Promise<string | null>;
}
