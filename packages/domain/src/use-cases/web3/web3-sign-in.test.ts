import { describe, expect, it } from "vitest";
import type { Web3Chain } from "../../model/web3-message.ts";
import { createTestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { fakeWeb3Signature } from "../../testing/fake-web3.ts";

const ETHEREUM_ADDRESS = "0x6A7d2E5b4A9fC0bE1f1E8e3C6a1b0D2c4e5F6a7B";
const OTHER_ETHEREUM_ADDRESS = "0x1111111111111111111111111111111111111111";
const SOLANA_ADDRESS = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
const OTHER_SOLANA_ADDRESS = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
const SITE = "https://app.example.com";

interface MessageFields {
  readonly domain?: string;
  readonly address?: string;
  readonly statement?: string | null;
  readonly uri?: string;
  readonly version?: string;
  readonly chainId?: string | null;
  readonly nonce?: string;
  readonly issuedAt?: Date;
  readonly expirationTime?: Date;
  readonly notBefore?: Date;
}

/** A sign-in message as auth-js writes it for `chain`, for the app at SITE unless told otherwise. */
function messageFor(chain: Web3Chain, now: Date, fields: MessageFields = {}): string {
  const account = chain === "ethereum" ? "Ethereum" : "Solana";
  const statement = fields.statement === undefined ? "Sign in to the app" : fields.statement;
  const chainId = fields.chainId === undefined ? (chain === "ethereum" ? "1" : "solana:mainnet") : fields.chainId;
  return [
    `${fields.domain ?? "app.example.com"} wants you to sign in with your ${account} account:`,
    fields.address ?? (chain === "ethereum" ? ETHEREUM_ADDRESS : SOLANA_ADDRESS),
    "",
    ...(statement === null ? [] : [statement, ""]),
    `URI: ${fields.uri ?? `${SITE}/login`}`,
    `Version: ${fields.version ?? "1"}`,
    ...(chainId === null ? [] : [`Chain ID: ${chainId}`]),
    `Nonce: ${fields.nonce ?? "32891756"}`,
    `Issued At: ${(fields.issuedAt ?? now).toISOString()}`,
    ...(fields.expirationTime ? [`Expiration Time: ${fields.expirationTime.toISOString()}`] : []),
    ...(fields.notBefore ? [`Not Before: ${fields.notBefore.toISOString()}`] : []),
  ].join("\n");
}

function setUp(options: TestAuthOptions = {}) {
  const testAuth = createTestAuth({
    ...options,
    policy: { ...options.policy, redirect: { siteUrl: SITE, allowList: [], ...options.policy?.redirect } },
  });
  const now = () => testAuth.clock.now();
  /** Signs `message` by the message's own account, unless `signer` names another. */
  const signIn = (chain: Web3Chain, message: string, signer?: string) => {
    const address = signer ?? message.split("\n")[1]!;
    return testAuth.auth.signInWithWeb3({
      chain,
      message,
      signature: fakeWeb3Signature(chain, address, message),
      context,
    });
  };
  return { ...testAuth, now, signIn };
}

const refusal = async (code: Parameters<typeof failsWith>[0], work: Promise<unknown>) =>
  (await failsWith(code, work)).message;

describe.each(["ethereum", "solana"] as const)("POST /token?grant_type=web3, %s", (chain) => {
  const title = chain === "ethereum" ? "Ethereum" : "Solana";
  const address = chain === "ethereum" ? ETHEREUM_ADDRESS : SOLANA_ADDRESS;
  const otherAddress = chain === "ethereum" ? OTHER_ETHEREUM_ADDRESS : OTHER_SOLANA_ADDRESS;

  it("signs up a new user with the wallet's identity alone, and signs it in again", async () => {
    const { signIn, now, stores, clock } = setUp();
    const grant = await signIn(chain, messageFor(chain, now()));
    const providerId = `web3:${chain}:${address}`;
    expect(grant.user.email).toBeNull();
    expect(grant.user.phone).toBeNull();
    expect(grant.user.appMetadata).toEqual({ provider: "web3", providers: ["web3"] });
    expect(grant.user.identities).toHaveLength(1);
    expect(grant.user.identities[0]).toMatchObject({
      provider: "web3",
      providerId,
      identityData: {
        sub: providerId,
        custom_claims: {
          address,
          chain,
          network: chain === "ethereum" ? "1" : "solana:mainnet",
          domain: "app.example.com",
          statement: "Sign in to the app",
        },
        email_verified: false,
        phone_verified: false,
      },
    });
    expect(grant.session.amr.map((entry) => entry.method)).toEqual(["web3"]);
    const audit = await stores.auditLog.list({ page: 1, perPage: 10 });
    expect(audit.entries[0]).toMatchObject({
      action: "login",
      actorId: grant.user.id,
      traits: { provider: "web3", chain, address, domain: "app.example.com", uri: `${SITE}/login` },
    });

    clock.advance({ seconds: 1 });
    const again = await signIn(chain, messageFor(chain, now()));
    expect(again.user.id).toBe(grant.user.id);
    expect(again.user.identities).toHaveLength(1);
  });

  it("refuses a message a second time, even with the signature of another encoding (ours)", async () => {
    const { signIn, now, auth } = setUp();
    const message = messageFor(chain, now());
    await signIn(chain, message);
    expect(await refusal("invalid_grant", signIn(chain, message))).toBe(
      `Signed ${title} message has already been used`,
    );
    if (chain === "solana") {
      const padded = `${fakeWeb3Signature(chain, address, message).replaceAll("-", "+").replaceAll("_", "/")}==`;
      const again = auth.signInWithWeb3({ chain, message, signature: padded, context });
      expect(await refusal("invalid_grant", again)).toBe("Signed Solana message has already been used");
    }
  });

  it("leaves a message usable when its sign-in fails", async () => {
    const { signIn, now } = setUp({ policy: { signup: { disabled: true } } });
    const message = messageFor(chain, now());
    expect(await refusal("signup_disabled", signIn(chain, message))).toBe("Signups not allowed for this instance");
  });

  it("refuses a signature by another key", async () => {
    const { signIn, now } = setUp();
    expect(await refusal("invalid_grant", signIn(chain, messageFor(chain, now()), otherAddress))).toBe(
      "Signature does not match address in message",
    );
  });

  it("refuses a message for another app: URI or domain", async () => {
    const { signIn, now } = setUp();
    const cases: [MessageFields, string][] = [
      [{ uri: "http://app.example.com/login" }, `Signed ${title} message is using URI which does not use HTTPS`],
      [
        { uri: "https://evil.example/login", domain: "evil.example" },
        `Signed ${title} message is using URI which is not allowed on this server, message was signed for another app`,
      ],
      [
        { domain: "evil.example" },
        `Signed ${title} message is using a Domain that does not match the one in URI which is not allowed on this server`,
      ],
    ];
    for (const [fields, expected] of cases) {
      expect(await refusal("invalid_grant", signIn(chain, messageFor(chain, now(), fields)))).toBe(expected);
    }
  });

  it("takes a message for localhost over http when SITE_URL is there", async () => {
    const { signIn, now } = setUp({ policy: { redirect: { siteUrl: "http://localhost:3000" } } });
    const message = messageFor(chain, now(), { domain: "localhost:3000", uri: "http://localhost:3000/" });
    expect((await signIn(chain, message)).user.identities[0]?.provider).toBe("web3");
  });

  it("takes a domain and URI on the allow list", async () => {
    const { signIn, now } = setUp({ policy: { redirect: { allowList: ["https://*.other.example/**"] } } });
    const message = messageFor(chain, now(), { domain: "a.other.example", uri: "https://a.other.example/x" });
    expect((await signIn(chain, message)).user.identities[0]?.provider).toBe("web3");
  });

  it("refuses a message out of its time, the chain's maximum validity and its own", async () => {
    const { signIn, now } = setUp({ policy: { web3: { [chain]: { maximumValiditySeconds: 300 } } } });
    const at = (seconds: number) => new Date(now().getTime() + seconds * 1000);
    const cases: [MessageFields, string][] = [
      [{ issuedAt: at(-301) }, `${title} message was issued too long ago`],
      [{ issuedAt: at(301) }, `${title} message was issued too far in the future`],
      [{ issuedAt: at(-60), expirationTime: at(-1) }, `Signed ${title} message is expired`],
      [{ notBefore: at(60), expirationTime: at(120) }, `Signed ${title} message becomes valid in the future`],
    ];
    for (const [fields, expected] of cases) {
      expect(await refusal("invalid_grant", signIn(chain, messageFor(chain, now(), fields)))).toBe(expected);
    }
    expect((await signIn(chain, messageFor(chain, now(), { issuedAt: at(-299) }))).user.email).toBeNull();
  });

  it("forgets a used message only once it could no longer sign in anyway", async () => {
    const { signIn, now, clock } = setUp();
    const message = messageFor(chain, now(), { expirationTime: new Date(now().getTime() + 60_000) });
    await signIn(chain, message);
    clock.advance({ seconds: 30 });
    expect(await refusal("invalid_grant", signIn(chain, message))).toBe(
      `Signed ${title} message has already been used`,
    );
    clock.advance({ seconds: 31 });
    expect(await refusal("invalid_grant", signIn(chain, message))).toBe(`Signed ${title} message is expired`);
  });

  it("refuses what is no sign-in message, with Supabase Auth's words", async () => {
    const { auth, now, signIn } = setUp();
    const prefix = chain === "ethereum" ? "siwe" : "siws";
    const short = auth.signInWithWeb3({ chain, message: "short", signature: "x", context });
    expect(await refusal("validation_failed", short)).toBe("message is too short");
    const long = auth.signInWithWeb3({ chain, message: "x".repeat(20 * 1024 + 1), signature: "x", context });
    expect(await refusal("validation_failed", long)).toBe("message must not exceed 20KB");
    const badSignature = auth.signInWithWeb3({ chain, message: messageFor(chain, now()), signature: "abc", context });
    expect(await refusal("validation_failed", badSignature)).toBe(
      chain === "ethereum"
        ? "signature must be 65 bytes long, encoded as a 130 character-long hexadecimal string"
        : "signature must be 64 bytes encoded as base64 with or without padding",
    );
    const cases: [string, string][] = [
      [
        messageFor(chain, now()).replace("wants you", "would like you"),
        `${prefix}: message first line does not end in`,
      ],
      [messageFor(chain, now(), { version: "2" }), `${prefix}: Version value is not supported, expected 1 got "2"`],
      [messageFor(chain, now(), { chainId: "nope" }), `${prefix}: Chain ID is not valid`],
      [messageFor(chain, now(), { uri: "not a uri" }), `${prefix}: URI is not valid`],
      [messageFor(chain, now()).replace("Issued At: ", "Issued At: yesterday "), `${prefix}: Issued At is not a valid`],
      [messageFor(chain, now()).replace("\nURI: ", "\nno colon here\nURI: "), `${prefix}: encountered unparsable line`],
      [messageFor(chain, now(), { address: "0xnope" }), `${prefix}: wallet address is not`],
      [messageFor(chain, now(), { domain: "not a domain" }), `${prefix}: domain in first line of message is not valid`],
    ];
    for (const [message, expected] of cases) {
      expect(await refusal("validation_failed", signIn(chain, message))).toContain(expected);
    }
  });

  it("answers a chain switched off, or an unknown one, as GoTrue does", async () => {
    const off = setUp({ policy: { web3: { [chain]: { enabled: false } } } });
    expect(await refusal("web3_provider_disabled", off.signIn(chain, messageFor(chain, off.now())))).toBe(
      `${title} Web3 provider is disabled`,
    );
    const none = setUp({ policy: { web3: { ethereum: { enabled: false }, solana: { enabled: false } } } });
    expect(await refusal("web3_provider_disabled", none.signIn(chain, messageFor(chain, none.now())))).toBe(
      "Web3 provider is disabled",
    );
    const { auth } = setUp();
    const bitcoin = auth.signInWithWeb3({ chain: "bitcoin", message: "m", signature: "s", context });
    expect(await refusal("web3_unsupported_chain", bitcoin)).toBe("Unsupported chain");
  });

  it("refuses a banned user", async () => {
    const { signIn, now, stores, clock } = setUp();
    const { user } = await signIn(chain, messageFor(chain, now()));
    await stores.users.update({ ...user, bannedUntil: new Date(now().getTime() + 3_600_000) });
    clock.advance({ seconds: 1 });
    expect(await refusal("user_banned", signIn(chain, messageFor(chain, now())))).toBe("User is banned");
  });

  it("never joins an account by anything but the wallet's identity", async () => {
    const { auth, signIn, now } = setUp({ policy: { signup: { emailAutoconfirm: true } } });
    await auth.signUp({ email: "ada@example.com", password: "correct horse", context });
    const { user } = await signIn(chain, messageFor(chain, now(), { statement: "ada@example.com" }));
    expect(user.email).toBeNull();
    expect(user.identities.map((identity) => identity.provider)).toEqual(["web3"]);
  });

  it("counts sign-ins per client under RATE_LIMIT_WEB3", async () => {
    const { signIn, now, clock } = setUp({ policy: { requestLimits: { web3: { events: 2 } } } });
    await signIn(chain, messageFor(chain, now()));
    clock.advance({ seconds: 1 });
    await signIn(chain, messageFor(chain, now()));
    clock.advance({ seconds: 1 });
    await failsWith("over_request_rate_limit", signIn(chain, messageFor(chain, now())));
  });

  it("asks the user-created hooks about a new user", async () => {
    const calls: string[] = [];
    const hook = (name: string) => ({
      uri: `https://hooks.example/${name}`,
      call: async () => {
        calls.push(name);
        return {};
      },
    });
    const { signIn, now } = setUp({
      ports: { hooks: { before_user_created: hook("before"), after_user_created: hook("after") } },
    });
    await signIn(chain, messageFor(chain, now()));
    expect(calls).toEqual(["before", "after"]);
  });
});

describe("Web3 messages", () => {
  it("reads an Ethereum message without a statement, nonce or chain id, and a Solana one without a chain id", async () => {
    const { signIn, now } = setUp();
    const ethereum = messageFor("ethereum", now(), { statement: null, chainId: null });
    const withoutNonce = ethereum.replace(/\nNonce: .*/, "");
    const grant = await signIn("ethereum", withoutNonce);
    expect(grant.user.identities[0]?.identityData["custom_claims"]).toMatchObject({ network: "", statement: null });
    const solana = await signIn("solana", messageFor("solana", now(), { statement: null, chainId: null }));
    expect(solana.user.identities[0]?.identityData["custom_claims"]).toMatchObject({ network: "", statement: "" });
  });
});
