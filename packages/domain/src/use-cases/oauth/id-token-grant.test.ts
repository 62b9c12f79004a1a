import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Transactor } from "../../ports/stores.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth, type TestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import {
  FakeOAuthProvider,
  type FakeOAuthProviderOptions,
  fakeProfile,
  providerEmail,
} from "../../testing/fake-oauth-provider.ts";
import { createInMemoryStores } from "../../testing/in-memory-stores.ts";

const password = "ada-password";
const rawNonce = "n-0S6_WzA2Mj-raw";
/** What the app gave the provider, and the token carries: the raw nonce's SHA-256 in lower-case hex. */
const hashedNonce = createHash("sha256").update(rawNonce).digest("hex");

/** Google, verifying id_tokens that carry `nonce`; GitHub, which issues none to verify. */
function withGoogle(
  idTokens: FakeOAuthProviderOptions["idTokens"] = { nonce: hashedNonce },
  policy: TestAuthOptions["policy"] = {},
) {
  const google = new FakeOAuthProvider({
    name: "google",
    profile: fakeProfile("go-1", [providerEmail("ada@example.com", true)], { full_name: "Ada Lovelace" }),
    idTokens,
  });
  const github = new FakeOAuthProvider();
  const testAuth = createTestAuth({
    policy,
    ports: { oauthProviders: new Map([google, github].map((provider) => [provider.name, provider])) },
  });
  return { ...testAuth, google, github };
}

let issued = 0;
/** A token of its own each time, unless told: each one signs in once. */
const anIdToken = () => `eyJ.id.token-${++issued}`;

const grantFor = (testAuth: TestAuth, fields: { provider?: string; idToken?: string; nonce?: string } = {}) =>
  testAuth.auth.oauth.signInWithIdToken({
    provider: "google",
    idToken: anIdToken(),
    nonce: rawNonce,
    ...fields,
    context,
  });

describe("POST /token?grant_type=id_token: the request", () => {
  it("needs an id_token", async () => {
    const testAuth = withGoogle();
    const error = await failsWith(
      "invalid_request",
      testAuth.auth.oauth.signInWithIdToken({ provider: undefined, idToken: undefined, context }),
    );
    expect(error.message).toBe("id_token required");
    expect(testAuth.google.verifiedIdTokens).toHaveLength(0);
  });

  it("needs a provider", async () => {
    const testAuth = withGoogle();
    const error = await failsWith(
      "invalid_request",
      testAuth.auth.oauth.signInWithIdToken({ provider: undefined, idToken: "eyJ.id.token", context }),
    );
    expect(error.message).toBe("provider or client_id and issuer required");
  });

  it("refuses a provider that issues no id_token to verify", async () => {
    const testAuth = withGoogle();
    const error = await failsWith("invalid_request", grantFor(testAuth, { provider: "github" }));
    expect(error.message).toBe('Custom OIDC provider "github" not allowed');
  });

  it("refuses a provider that is not enabled as GoTrue does, and one it does not know as a custom provider", async () => {
    const testAuth = withGoogle();
    const disabled = await failsWith("provider_disabled", grantFor(testAuth, { provider: "apple" }));
    expect(disabled.message).toBe('Provider (issuer "apple") is not enabled');
    const unknown = await failsWith("invalid_request", grantFor(testAuth, { provider: "myspace" }));
    expect(unknown.message).toBe('Custom OIDC provider "myspace" not allowed');
  });

  it("refuses a token the provider's verifier rejects, without its words", async () => {
    const testAuth = withGoogle();
    testAuth.google.failAt = "id_token";
    const error = await failsWith("invalid_request", grantFor(testAuth));
    expect(error.message).toBe("Bad ID token");
    expect(await testAuth.stores.users.findByEmail("ada@example.com")).toBeNull();
  });

  it("signs in once with each id_token: the same one again is refused, and a refused sign-in leaves it usable", async () => {
    const testAuth = withGoogle();
    const token = anIdToken();
    // Refused for another reason (the token carries no address): nothing is remembered.
    testAuth.google.idTokenProfile = fakeProfile("go-1", []);
    await failsWith("email_address_not_provided", grantFor(testAuth, { idToken: token }));
    testAuth.google.idTokenProfile = null;
    expect((await grantFor(testAuth, { idToken: token })).user.email).toBe("ada@example.com");
    const replay = await failsWith("invalid_request", grantFor(testAuth, { idToken: token }));
    expect(replay.message).toBe("id_token already used");
    expect((await grantFor(testAuth)).user.email).toBe("ada@example.com");
  });

  it("hands the verifier the id_token, and the access_token when one is given", async () => {
    const testAuth = withGoogle();
    await testAuth.auth.oauth.signInWithIdToken({
      provider: "google",
      idToken: "eyJ.id.token",
      accessToken: "ya29.access",
      nonce: rawNonce,
      context,
    });
    await testAuth.auth.oauth.signInWithIdToken({
      provider: "google",
      idToken: "eyJ.second",
      accessToken: "",
      nonce: rawNonce,
      context,
    });
    expect(testAuth.google.verifiedIdTokens).toEqual([
      { idToken: "eyJ.id.token", accessToken: "ya29.access" },
      { idToken: "eyJ.second", accessToken: undefined },
    ]);
  });
});

describe("POST /token?grant_type=id_token: the nonce", () => {
  it("must be posted when the token carries one", async () => {
    const testAuth = withGoogle();
    const error = await failsWith("invalid_request", grantFor(testAuth, { nonce: "" }));
    expect(error.message).toBe("Passed nonce and nonce in id_token should either both exist or not.");
  });

  it("must not be posted when the token carries none", async () => {
    const testAuth = withGoogle({});
    const error = await failsWith("invalid_request", grantFor(testAuth));
    expect(error.message).toBe("Passed nonce and nonce in id_token should either both exist or not.");
  });

  it("must be the raw value whose hash the token carries", async () => {
    const testAuth = withGoogle();
    const error = await failsWith("invalid_request", grantFor(testAuth, { nonce: "another-nonce" }));
    expect(error.message).toBe("Nonces mismatch");
    // The hash itself, posted, is no raw nonce.
    await failsWith("invalid_request", grantFor(testAuth, { nonce: hashedNonce }));
    expect(await testAuth.stores.users.findByEmail("ada@example.com")).toBeNull();
  });

  it("signs in when it matches: a new account with an oauth session and no provider tokens", async () => {
    const testAuth = withGoogle();
    const grant = await grantFor(testAuth);
    expect(grant.session.amr[0]?.method).toBe("oauth");
    expect(grant.providerTokens).toBeUndefined();
    expect(grant.user).toMatchObject({
      email: "ada@example.com",
      emailConfirmedAt: testAuth.clock.now(),
      appMetadata: { provider: "google", providers: ["google"] },
      userMetadata: { full_name: "Ada Lovelace", email: "ada@example.com", email_verified: true },
    });
    expect(grant.user.identities.map((identity) => [identity.provider, identity.providerId])).toEqual([
      ["google", "go-1"],
    ]);
    const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
    expect(principal.user.id).toBe(grant.user.id);
  });

  it("may be absent from both", async () => {
    const testAuth = withGoogle({});
    expect((await grantFor(testAuth, { nonce: "" })).user.email).toBe("ada@example.com");
  });

  it("is not checked when the provider skips the check (SKIP_NONCE_CHECK)", async () => {
    const testAuth = withGoogle({ nonce: "whatever-the-token-says", skipNonceCheck: true });
    const first = await grantFor(testAuth, { nonce: "" });
    const second = await grantFor(testAuth, { nonce: "not-what-the-token-says" });
    expect(second.user.id).toBe(first.user.id);
  });
});

describe("POST /token?grant_type=id_token: who signs in", () => {
  it("follows the account rules of a callback: the returning identity's user, a verified address's account", async () => {
    const testAuth = withGoogle();
    const account = aUser({ email: "ada@example.com", passwordHash: await testAuth.hasher.hash(password) });
    await testAuth.stores.users.insert(account);
    const linked = await grantFor(testAuth);
    expect(linked.user.id).toBe(account.id);
    expect(linked.user.appMetadata).toEqual({ provider: "email", providers: ["email", "google"] });
    expect((await grantFor(testAuth)).user.id).toBe(account.id);
  });

  it("signs the loser of two first sign-ins at once in to the account the winner made, and makes no second one", async () => {
    const { stores, tx } = createInMemoryStores();
    // The loser's first transaction read before the winner's committed: it saw no identity and no holder of the
    // address, so it decided to create the account too.
    let stale = false;
    const racing: Transactor = {
      run: (work) =>
        tx.run((inTx) => {
          if (!stale) return work(inTx);
          stale = false;
          return work({
            ...inTx,
            identities: { ...inTx.identities, find: async () => null, findByEmails: async () => [] },
            users: { ...inTx.users, findByEmail: async () => null },
          });
        }),
    };
    const google = new FakeOAuthProvider({
      name: "google",
      profile: fakeProfile("go-1", [providerEmail("ada@example.com", true)]),
      idTokens: { nonce: hashedNonce },
    });
    const testAuth = createTestAuth({ ports: { stores, tx: racing, oauthProviders: new Map([["google", google]]) } });
    const winner = await grantFor(testAuth);
    stale = true;
    const loser = await grantFor(testAuth);
    expect(stale).toBe(false);
    expect(loser.user.id).toBe(winner.user.id);
    expect(await stores.users.findByEmail("ada@example.com")).toMatchObject({ id: winner.user.id });
    expect(testAuth.events.of("signed_up")).toHaveLength(1);
  });

  it("mails a confirmation for an address the provider did not verify, and refuses until it is followed", async () => {
    const testAuth = withGoogle();
    testAuth.google.profile = fakeProfile("go-1", [providerEmail("ada@example.com", false)]);
    const error = await failsWith("provider_email_needs_verification", grantFor(testAuth));
    expect(error.message).toBe("Unverified email with google. A confirmation email has been sent to your google email");
    expect(await testAuth.stores.users.findByEmail("ada@example.com")).toMatchObject({ emailConfirmedAt: null });
    expect(await testAuth.lastEmail("ada@example.com", "confirmation")).toBeDefined();
  });

  it("with link_identity, links the identity to the signed-in user instead", async () => {
    const testAuth = withGoogle(undefined, { manualLinkingEnabled: true });
    const account = aUser({ email: "grace@example.com", passwordHash: await testAuth.hasher.hash(password) });
    await testAuth.stores.users.insert(account);
    const signedIn = await testAuth.auth.signInWithPassword({ email: "grace@example.com", password, context });
    const principal = await testAuth.auth.authenticate({ accessToken: signedIn.accessToken });

    const grant = await testAuth.auth.oauth.signInWithIdToken({
      provider: "google",
      idToken: anIdToken(),
      nonce: rawNonce,
      linkingTarget: principal,
      context,
    });
    expect(grant.user.id).toBe(account.id);
    expect(grant.user.email).toBe("grace@example.com");
    expect(grant.user.appMetadata).toEqual({ provider: "email", providers: ["email", "google"] });
    expect((await testAuth.stores.identities.find("google", "go-1"))?.userId).toBe(account.id);

    const again = testAuth.auth.oauth.signInWithIdToken({
      provider: "google",
      idToken: anIdToken(),
      nonce: rawNonce,
      linkingTarget: principal,
      context,
    });
    expect((await failsWith("identity_already_exists", again)).message).toBe("Identity is already linked");
  });
});
