import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { createClient } from "@supabase/supabase-js";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { anonKey, claimsOf, memoryStorage } from "./support.ts";

// Web3 sign-in end to end: supabase-js's signInWithWeb3 with messages signed by real keys made here (an Ethereum
// account with viem, an ed25519 key for Solana), and the refusals Supabase Auth answers, plus ours (a message signs
// in once).

const APP = "https://app.example.com";

let server: TestServer;
/** The same, with only Ethereum switched on. */
let ethereumOnly: TestServer;
let anon: string;

beforeAll(async () => {
  const common = {
    AUTH_URI_ALLOW_LIST: `${APP}/**`,
    // Every request comes from 127.0.0.1: one client far over the limit a suite would be.
    AUTH_RATE_LIMIT_WEB3: "100000",
  };
  [server, ethereumOnly] = await Promise.all([
    startTestServer({
      ...common,
      AUTH_EXTERNAL_WEB3_ETHEREUM_ENABLED: "true",
      AUTH_EXTERNAL_WEB3_SOLANA_ENABLED: "true",
      AUTH_EXTERNAL_WEB3_SOLANA_MAXIMUM_VALIDITY_DURATION: "5m",
    }),
    startTestServer({ ...common, AUTH_EXTERNAL_WEB3_ETHEREUM_ENABLED: "true" }),
  ]);
  anon = await anonKey();
});
afterAll(async () => {
  await Promise.all([server?.close(), ethereumOnly?.close()]);
});

const supabase = (target = server) =>
  createClient(target.url, anon, {
    realtime: { transport: ws as never },
    auth: { storage: memoryStorage(), persistSession: true, autoRefreshToken: false, detectSessionInUrl: false },
  });

interface Fields {
  readonly domain?: string;
  readonly uri?: string;
  readonly chainId?: string;
  readonly issuedAt?: Date;
  readonly expirationTime?: Date;
  readonly notBefore?: Date;
  readonly nonce?: string;
}

const secondsFromNow = (seconds: number) => new Date(Date.now() + seconds * 1000);
const nonce = () => Math.random().toString(36).slice(2, 12);

/** A Sign-In-With-Ethereum message, written as auth-js's createSiweMessage writes it. */
function siwe(address: string, fields: Fields = {}): string {
  return [
    `${fields.domain ?? "app.example.com"} wants you to sign in with your Ethereum account:`,
    address,
    "",
    "Sign in to the example app",
    "",
    `URI: ${fields.uri ?? `${APP}/`}`,
    "Version: 1",
    `Chain ID: ${fields.chainId ?? "1"}`,
    `Nonce: ${fields.nonce ?? nonce()}`,
    `Issued At: ${(fields.issuedAt ?? new Date()).toISOString()}`,
    ...(fields.expirationTime ? [`Expiration Time: ${fields.expirationTime.toISOString()}`] : []),
    ...(fields.notBefore ? [`Not Before: ${fields.notBefore.toISOString()}`] : []),
  ].join("\n");
}

/** A Sign-In-With-Solana message, written as auth-js writes one for a wallet without signIn(). */
function siws(address: string, fields: Fields = {}): string {
  return [
    `${fields.domain ?? "app.example.com"} wants you to sign in with your Solana account:`,
    address,
    "",
    "Sign in to the example app",
    "",
    "Version: 1",
    `URI: ${fields.uri ?? `${APP}/`}`,
    `Issued At: ${(fields.issuedAt ?? new Date()).toISOString()}`,
    ...(fields.notBefore ? [`Not Before: ${fields.notBefore.toISOString()}`] : []),
    ...(fields.expirationTime ? [`Expiration Time: ${fields.expirationTime.toISOString()}`] : []),
    `Chain ID: ${fields.chainId ?? "solana:mainnet"}`,
    `Nonce: ${fields.nonce ?? nonce()}`,
  ].join("\n");
}

/** An Ethereum wallet: its account, what it signs, and its sign-in through supabase-js with a message it signed. */
function ethereumWallet() {
  const account: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey());
  const post = (message: string, signature: `0x${string}`, target = server) =>
    supabase(target).auth.signInWithWeb3({ chain: "ethereum", message, signature });
  const signIn = async (message: string, target = server, signer = account) =>
    post(message, await signer.signMessage({ message }), target);
  return {
    address: account.address,
    signIn,
    tampered: async (message: string, changed: string) => post(changed, await account.signMessage({ message })),
  };
}

/** A Solana wallet: its base58 address, and its sign-in through supabase-js with a message it signed. */
function solanaWallet() {
  const secretKey = ed25519.utils.randomSecretKey();
  const address = base58.encode(ed25519.getPublicKey(secretKey));
  const post = (message: string, signature: Uint8Array, target = server) =>
    supabase(target).auth.signInWithWeb3({ chain: "solana", message, signature });
  const sign = (message: string, key = secretKey) => ed25519.sign(new TextEncoder().encode(message), key);
  const signIn = async (message: string, target = server, key = secretKey) => post(message, sign(message, key), target);
  return { address, signIn, tampered: async (message: string, changed: string) => post(changed, sign(message)) };
}

describe.each([
  { chain: "ethereum", title: "Ethereum", wallet: ethereumWallet, write: siwe },
  { chain: "solana", title: "Solana", wallet: solanaWallet, write: siws },
] as const)("signInWithWeb3, $chain", ({ chain, title, wallet, write }) => {
  it("signs up a user with the wallet's identity, then signs it in again", async () => {
    const { address, signIn } = wallet();
    const first = await signIn(write(address));
    expect(first.error).toBeNull();
    const { user, session } = first.data;
    const providerId = `web3:${chain}:${address}`;
    expect(user?.email ?? "").toBe("");
    expect(user?.app_metadata).toMatchObject({ provider: "web3", providers: ["web3"] });
    expect(user?.identities).toHaveLength(1);
    expect(user?.identities?.[0]).toMatchObject({
      provider: "web3",
      id: providerId,
      identity_data: {
        sub: providerId,
        custom_claims: {
          address,
          chain,
          network: chain === "ethereum" ? "1" : "solana:mainnet",
          domain: "app.example.com",
          statement: "Sign in to the example app",
        },
      },
    });
    const claims = claimsOf(session!.access_token);
    expect((claims["amr"] as { method: string }[]).map((entry) => entry.method)).toEqual(["web3"]);

    const refreshed = await supabase().auth.refreshSession({ refresh_token: session!.refresh_token });
    expect(refreshed.error).toBeNull();
    const refreshedAmr = claimsOf(refreshed.data.session!.access_token)["amr"] as { method: string }[];
    expect(refreshedAmr.map((entry) => entry.method)).toEqual(["web3"]);

    const again = await signIn(write(address));
    expect(again.error).toBeNull();
    expect(again.data.user?.id).toBe(user?.id);
  });

  it("refuses a message signed for another app", async () => {
    const { address, signIn } = wallet();
    const wrongDomain = await signIn(write(address, { domain: "evil.example" }));
    expect(wrongDomain.error).toMatchObject({
      status: 400,
      message: `Signed ${title} message is using a Domain that does not match the one in URI which is not allowed on this server`,
    });
    const wrongUri = await signIn(write(address, { domain: "evil.example", uri: "https://evil.example/" }));
    expect(wrongUri.error).toMatchObject({
      status: 400,
      message: `Signed ${title} message is using URI which is not allowed on this server, message was signed for another app`,
    });
    const plainHttp = await signIn(write(address, { uri: "http://app.example.com/" }));
    expect(plainHttp.error?.message).toBe(`Signed ${title} message is using URI which does not use HTTPS`);
  });

  it("refuses a message out of its time", async () => {
    const { address, signIn } = wallet();
    const expired = await signIn(write(address, { issuedAt: secondsFromNow(-60), expirationTime: secondsFromNow(-1) }));
    expect(expired.error).toMatchObject({ status: 400, message: `Signed ${title} message is expired` });
    const old = await signIn(write(address, { issuedAt: secondsFromNow(chain === "solana" ? -301 : -601) }));
    expect(old.error?.message).toBe(`${title} message was issued too long ago`);
    const notYet = await signIn(write(address, { notBefore: secondsFromNow(60), expirationTime: secondsFromNow(120) }));
    expect(notYet.error?.message).toBe(`Signed ${title} message becomes valid in the future`);
  });

  it("takes a message once (ours)", async () => {
    const { address, signIn } = wallet();
    const message = write(address);
    expect((await signIn(message)).error).toBeNull();
    const replayed = await signIn(message);
    expect(replayed.error).toMatchObject({ status: 400, message: `Signed ${title} message has already been used` });
  });

  it("refuses a tampered message, another key's signature, and another chain's message", async () => {
    const { address, tampered: tampered_ } = wallet();
    const other = wallet();
    const message = write(address);
    const tampered = await tampered_(message, message.replace("Sign in to", "Sign in as admin to"));
    expect(tampered.error).toMatchObject({ status: 400, message: "Signature does not match address in message" });
    // Another wallet signs a message naming this one's address.
    const byAnother = await other.signIn(message);
    expect(byAnother.error?.message).toBe("Signature does not match address in message");
    const otherChain = await fetch(`${server.url}/token?grant_type=web3`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        chain: chain === "ethereum" ? "solana" : "ethereum",
        message,
        signature: chain === "ethereum" ? "A".repeat(86) : `0x${"00".repeat(65)}`,
      }),
    });
    expect(otherChain.status).toBe(400);
    expect(await otherChain.json()).toMatchObject({
      error_code: "validation_failed",
      msg: `${chain === "ethereum" ? "siws" : "siwe"}: message first line does not end in " wants you to sign in with your ${chain === "ethereum" ? "Solana" : "Ethereum"} account:"`,
    });
  });
});

describe("signInWithWeb3, refusals of the grant", () => {
  it("answers an unsupported chain, and a chain switched off, with Supabase Auth's codes", async () => {
    const bitcoin = await fetch(`${server.url}/token?grant_type=web3`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ chain: "bitcoin", message: "m", signature: "s" }),
    });
    expect(bitcoin.status).toBe(400);
    expect(await bitcoin.json()).toMatchObject({ error_code: "web3_unsupported_chain", msg: "Unsupported chain" });

    const { address, signIn } = solanaWallet();
    const off = await signIn(siws(address), ethereumOnly);
    expect(off.error).toMatchObject({
      status: 422,
      code: "web3_provider_disabled",
      message: "Solana Web3 provider is disabled",
    });
    const ethereum = ethereumWallet();
    expect((await ethereum.signIn(siwe(ethereum.address), ethereumOnly)).error).toBeNull();
  });

  it("refuses a signature by a key other than the message's", async () => {
    const ethereum = ethereumWallet();
    const impostor = privateKeyToAccount(generatePrivateKey());
    const byImpostor = await ethereum.signIn(siwe(ethereum.address), server, impostor);
    expect(byImpostor.error).toMatchObject({ status: 400, message: "Signature does not match address in message" });
    const solana = solanaWallet();
    const byOtherKey = await solana.signIn(siws(solana.address), server, ed25519.utils.randomSecretKey());
    expect(byOtherKey.error?.message).toBe("Signature does not match address in message");
  });

  it("reports the chains in GET /settings", async () => {
    const settings = (await (await fetch(`${server.url}/settings`)).json()) as { external: Record<string, boolean> };
    expect(settings.external).toMatchObject({ web3_solana: true, web3_ethereum: true });
    const other = (await (await fetch(`${ethereumOnly.url}/settings`)).json()) as { external: Record<string, boolean> };
    expect(other.external).toMatchObject({ web3_solana: false, web3_ethereum: true });
  });
});
