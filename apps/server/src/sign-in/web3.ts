import type { Web3Verifier } from "@latchkey/domain";
import type { Config } from "../config/index.ts";

/**
 * EXTERNAL_WEB3_*: the verifier of wallets' signatures, when either chain is switched on; none otherwise. Loaded
 * only then: viem and the curves are megabytes that a server without Web3 sign-in never needs.
 */
export async function createConfiguredWeb3Verifier(config: Config): Promise<Web3Verifier | null> {
  if (!config.web3.solanaEnabled && !config.web3.ethereumEnabled) return null;
  const { createWeb3Verifier } = await import("@latchkey/adapters-web3");
  return createWeb3Verifier();
}
