import type { Web3Verifier } from "@latchkey/domain";
import { verifyEthereumSignature } from "./ethereum.ts";
import { verifySolanaSignature } from "./solana.ts";

/**
 * The domain's Web3Verifier: who signed a Sign-In-With-Ethereum message (secp256k1 recovery of an EIP-191
 * personal_sign signature, with viem) or a Sign-In-With-Solana message (ed25519, with @noble/curves; base58 with
 * @scure/base). No network: an account is its key. Contract wallets (EIP-1271), which would need a chain's node,
 * are not taken, as Supabase Auth takes none.
 */
export function createWeb3Verifier(): Web3Verifier {
  return {
    signerOf: async ({ chain, message, signature }) =>
      chain === "ethereum" ? verifyEthereumSignature(message, signature) : verifySolanaSignature(message, signature),
  };
}
