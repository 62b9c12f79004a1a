import type { Web3Chain, Web3Message } from "@latchkey/domain";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { createWeb3Verifier } from "../src/index.ts";
import { offchainMessage } from "../src/solana.ts";

const verifier = createWeb3Verifier();

/** The fields the verifier reads; the domain parses the rest. */
function messageOf(chain: Web3Chain, address: string, domain = "app.example.com"): Web3Message {
  const account = chain === "ethereum" ? "Ethereum" : "Solana";
  const raw = [
    `${domain} wants you to sign in with your ${account} account:`,
    address,
    "",
    "Sign in",
    "",
    "URI: https://app.example.com/",
    "Version: 1",
    "Issued At: 2026-01-01T00:00:00.000Z",
  ].join("\n");
  return {
    raw,
    domain,
    address,
    statement: "Sign in",
    uri: { text: "https://app.example.com/", scheme: "https", host: domain, hostname: domain },
    version: "1",
    chainId: "",
    nonce: "",
    issuedAt: new Date("2026-01-01T00:00:00.000Z"),
    expirationTime: null,
    notBefore: null,
    requestId: null,
    resources: [],
  };
}

const signerOf = (chain: Web3Chain, message: Web3Message, signature: string) =>
  verifier.signerOf({ chain, message, signature });

describe("Sign-In-With-Ethereum signatures", () => {
  const account = privateKeyToAccount(generatePrivateKey());
  const other = privateKeyToAccount(generatePrivateKey());

  it("names the signer, EIP-55 checksummed, however the message writes the address", async () => {
    for (const written of [account.address, account.address.toLowerCase()]) {
      const message = messageOf("ethereum", written);
      const signature = await account.signMessage({ message: message.raw });
      expect(await signerOf("ethereum", message, signature)).toBe(account.address);
    }
  });

  it("takes v as 0 or 1 as well as 27 or 28", async () => {
    const message = messageOf("ethereum", account.address);
    const signature = await account.signMessage({ message: message.raw });
    const v = Number.parseInt(signature.slice(-2), 16);
    const lowV = `${signature.slice(0, -2)}${(v - 27).toString(16).padStart(2, "0")}`;
    expect(await signerOf("ethereum", message, lowV)).toBe(account.address);
  });

  it("refuses another key's signature, a tampered message, and what is no signature", async () => {
    const message = messageOf("ethereum", account.address);
    const signature = await account.signMessage({ message: message.raw });
    expect(await signerOf("ethereum", message, await other.signMessage({ message: message.raw }))).toBeNull();
    const tampered = { ...message, raw: message.raw.replace("Sign in", "Sign in!") };
    expect(await signerOf("ethereum", tampered, signature)).toBeNull();
    // Supabase Auth wants the 0x.
    expect(await signerOf("ethereum", message, signature.slice(2))).toBeNull();
    expect(await signerOf("ethereum", message, `0x${"zz".repeat(65)}`)).toBeNull();
    expect(await signerOf("ethereum", message, `0x${"00".repeat(64)}1b`)).toBeNull();
    expect(await signerOf("ethereum", message, `${signature.slice(0, -2)}05`)).toBeNull();
  });
});

describe("Sign-In-With-Solana signatures", () => {
  const secretKey = ed25519.utils.randomSecretKey();
  const address = base58.encode(ed25519.getPublicKey(secretKey));
  const otherKey = ed25519.utils.randomSecretKey();
  const sign = (bytes: Uint8Array, key = secretKey) => ed25519.sign(bytes, key);
  const text = (message: Web3Message) => new TextEncoder().encode(message.raw);

  it("names the signer of the message, its signature in base64url or base64, padded or not", async () => {
    const message = messageOf("solana", address);
    const signature = Buffer.from(sign(text(message)));
    for (const encoded of [
      signature.toString("base64url"),
      signature.toString("base64"),
      signature.toString("base64").replace(/=+$/, ""),
    ]) {
      expect(await signerOf("solana", message, encoded)).toBe(address);
    }
  });

  it("takes the message as a Ledger signs it (Solana's off-chain message format)", async () => {
    const message = messageOf("solana", address);
    const offchain = offchainMessage(message.domain, base58.decode(address), text(message))!;
    const signature = Buffer.from(sign(offchain)).toString("base64url");
    expect(await signerOf("solana", message, signature)).toBe(address);
  });

  it("refuses another key's signature, a tampered message, and a key that is none", async () => {
    const message = messageOf("solana", address);
    const signature = Buffer.from(sign(text(message))).toString("base64url");
    expect(
      await signerOf("solana", message, Buffer.from(sign(text(message), otherKey)).toString("base64url")),
    ).toBeNull();
    expect(await signerOf("solana", { ...message, raw: `${message.raw}\n` }, signature)).toBeNull();
    expect(await signerOf("solana", messageOf("solana", "1111111111111111111111111111111111"), signature)).toBeNull();
    expect(await signerOf("solana", messageOf("solana", "0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl"), signature)).toBeNull();
    expect(await signerOf("solana", message, Buffer.alloc(64).toString("base64url"))).toBeNull();
  });
});
