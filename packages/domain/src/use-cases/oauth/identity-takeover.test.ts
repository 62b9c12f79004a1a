import { describe, expect, it } from "vitest";
import type { AuthError } from "../../errors.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth, type TestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { FakeOAuthProvider, fakeProfile, providerEmail } from "../../testing/fake-oauth-provider.ts";
import { linkThroughProvider, PKCE_EXAMPLE } from "../../testing/link-through-provider.ts";
import { totpCode, totpStep } from "../../testing/test-totp.ts";
import type { CompleteOAuthResult } from "./complete-sign-in.ts";

// Account takeovers through identities (the third attack review): a provider that reports someone else's address,
// unverified, must never give its user a way into that address's account.

const victim = "victim@example.com";
const ownersPassword = "owner-chose-this";
const attackersPassword = "attacker-knows-this";

/** GitHub playing the attacker (an account whose address is the victim's, unverified), Google the victim. */
function withProviders(policy: TestAuthOptions["policy"] = {}) {
  const attackersGithub = new FakeOAuthProvider({
    profile: fakeProfile("gh-attacker", [providerEmail(victim, false)], { user_name: "mallory", name: "Mallory" }),
  });
  const google = new FakeOAuthProvider({
    name: "google",
    profile: fakeProfile("go-victim", [providerEmail(victim, true)], { name: "Victim" }),
  });
  const testAuth = createTestAuth({
    policy,
    ports: { oauthProviders: new Map([attackersGithub, google].map((provider) => [provider.name, provider])) },
  });
  return { ...testAuth, attackersGithub, google };
}

type WithProviders = ReturnType<typeof withProviders>;

/** /authorize then /callback. */
async function signInThrough(testAuth: TestAuth, provider: FakeOAuthProvider): Promise<CompleteOAuthResult> {
  await testAuth.auth.oauth.start({ provider: provider.name, params: [] });
  return testAuth.auth.oauth.complete({ params: { state: provider.lastState, code: "abc" }, context });
}

function failure(result: CompleteOAuthResult): AuthError["code"] | undefined {
  return result.kind === "failed" ? result.error.code : undefined;
}

/** Follows the latest mail of that kind to the victim, as the victim's browser would. */
async function follow(testAuth: TestAuth, kind: "confirmation" | "magic_link") {
  const mail = (await testAuth.lastEmail(victim, kind))!;
  const result = await testAuth.auth.verify({
    type: kind === "confirmation" ? "signup" : "magiclink",
    proof: { linkToken: mail.linkToken },
    followedLink: true,
    context,
  });
  if (result.kind !== "session") throw new Error("expected a session");
  return result.grant;
}

/** The attacker's own password account, signed in: its user and its principal. */
async function attackerSignedIn(testAuth: WithProviders) {
  const account = aUser({ email: "mallory@evil.example", passwordHash: await testAuth.hasher.hash(attackersPassword) });
  await testAuth.stores.users.insert(account);
  const grant = await testAuth.auth.signInWithPassword({
    email: "mallory@evil.example",
    password: attackersPassword,
    context,
  });
  return { account, principal: await testAuth.auth.authenticate({ accessToken: grant.accessToken }) };
}
/** The attacker's provider sign-in, whose address the provider did not verify: an account waits for its mail. */
async function attackerSignsInFirst(testAuth: WithProviders) {
  expect(failure(await signInThrough(testAuth, testAuth.attackersGithub))).toBe("provider_email_needs_verification");
  // The confirmation it caused goes to the victim, who ignores it.
  testAuth.clock.advance({ hours: 1 });
}

/** What the attacker gets from signing in with the provider again: never a session into the victim's account. */
async function expectAttackerLockedOut(testAuth: WithProviders, victimsId: string) {
  const again = await signInThrough(testAuth, testAuth.attackersGithub);
  if (again.kind === "session") expect(again.grant.user.id).not.toBe(victimsId);
  const account = (await testAuth.stores.users.findById(victimsId))!;
  expect(account.identities.map((identity) => identity.provider)).not.toContain("github");
  expect(await testAuth.stores.identities.find("github", "gh-attacker")).not.toMatchObject({ userId: victimsId });
}

describe("H1: a provider sign-in that claimed the owner's address, unverified, before the owner came", () => {
  it("keeps nothing of the account once its owner signs up and confirms by mail", async () => {
    const testAuth = withProviders();
    await attackerSignsInFirst(testAuth);
    await testAuth.auth.signUp({ email: victim, password: ownersPassword, context });
    const grant = await follow(testAuth, "confirmation");

    expect(grant.user.identities.map((identity) => identity.provider)).toEqual(["email"]);
    expect(grant.user.appMetadata).toMatchObject({ providers: ["email"] });
    // What the attacker's profile gave is gone with it.
    expect(grant.user.userMetadata).not.toHaveProperty("user_name");
    expect(grant.user.userMetadata).not.toHaveProperty("name");
    expect(grant.user.userMetadata).toMatchObject({ email: victim, email_verified: true });
    await expectAttackerLockedOut(testAuth, grant.user.id);
    // Two parties asked for the address (the provider sign-in and the signup): as for two signups, the
    // confirmation carried neither's choices, and the owner, signed in by it, sets a password next.
    expect(grant.user.passwordHash).toBeNull();
  });

  it("keeps nothing of the account once its owner signs in by magic link", async () => {
    const testAuth = withProviders();
    await attackerSignsInFirst(testAuth);
    await testAuth.auth.sendMagicLink({ email: victim, createUser: true, context });
    const grant = await follow(testAuth, "confirmation");
    expect(grant.user.identities.map((identity) => identity.provider)).toEqual(["email"]);
    await expectAttackerLockedOut(testAuth, grant.user.id);
  });

  it("with unverified sign-ins allowed, loses its session, its second factor and its identity to the owner's proof", async () => {
    const testAuth = withProviders({ signup: { allowUnverifiedEmailSignIns: true } });
    const signedIn = await signInThrough(testAuth, testAuth.attackersGithub);
    if (signedIn.kind !== "session") throw new Error("expected the attacker signed in");
    const attacker = await testAuth.auth.authenticate({ accessToken: signedIn.grant.accessToken });
    const enrolled = await testAuth.auth.mfa.enroll({
      principal: attacker,
      factorType: "totp",
      friendlyName: undefined,
      issuer: undefined,
      phone: undefined,
      context,
    });
    if (!("totp" in enrolled)) throw new Error("expected a TOTP enrollment");
    const factorId = enrolled.factor.id;
    const challenge = await testAuth.auth.mfa.challenge({ principal: attacker, factorId, channel: undefined, context });
    const code = totpCode(enrolled.totp.secret, totpStep(testAuth.clock.now()));
    await testAuth.auth.mfa.verify({ principal: attacker, factorId, challengeId: challenge.id, code, context });
    expect((await testAuth.stores.users.findById(attacker.user.id))?.factors).toHaveLength(1);
    testAuth.clock.advance({ hours: 1 });

    await testAuth.auth.signUp({ email: victim, password: ownersPassword, context });
    const grant = await follow(testAuth, "confirmation");
    expect(grant.user.id).toBe(signedIn.grant.user.id);
    expect(grant.user.identities.map((identity) => identity.provider)).toEqual(["email"]);
    expect(grant.user.factors).toEqual([]);
    await failsWith(
      "refresh_token_not_found",
      testAuth.auth.refreshSession({ refreshToken: signedIn.grant.refreshToken, context }),
    );
    await expectAttackerLockedOut(testAuth, grant.user.id);
  });

  it("keeps its identity when the mail that sign-in caused is followed: the honest case of an unverified address", async () => {
    const testAuth = withProviders();
    await attackerSignsInFirst(testAuth);
    const grant = await follow(testAuth, "confirmation");
    expect(grant.user.identities.map((identity) => identity.provider)).toEqual(["github"]);
    const again = await signInThrough(testAuth, testAuth.attackersGithub);
    expect(again.kind === "session" && again.grant.user.id).toBe(grant.user.id);
  });

  it("is dropped when the owner's own verified provider sign-in comes first, as before", async () => {
    const testAuth = withProviders();
    await attackerSignsInFirst(testAuth);
    const owner = await signInThrough(testAuth, testAuth.google);
    if (owner.kind !== "session") throw new Error("expected the owner signed in");
    expect(owner.grant.user.identities.map((identity) => identity.provider)).toEqual(["google"]);
    await expectAttackerLockedOut(testAuth, owner.grant.user.id);
  });
});

describe("M1: an identity that merely claims an address", () => {
  /** The attacker's own confirmed account, with a GitHub identity claiming the victim's address, unverified. */
  async function attackersAccountClaimingTheAddress(testAuth: WithProviders) {
    const attacker = aUser({ email: "mallory@evil.example", passwordHash: await testAuth.hasher.hash("x") });
    await testAuth.stores.users.insert(attacker);
    const now = testAuth.clock.now();
    await testAuth.stores.identities.save({
      id: crypto.randomUUID(),
      userId: attacker.id,
      provider: "github",
      providerId: "gh-attacker",
      identityData: { sub: "gh-attacker", email: victim, email_verified: false },
      lastSignInAt: null,
      createdAt: now,
      updatedAt: now,
    });
    return attacker;
  }

  it("holds nothing: the owner's first verified sign-in makes an account of the owner's own", async () => {
    const testAuth = withProviders();
    const attacker = await attackersAccountClaimingTheAddress(testAuth);
    const owner = await signInThrough(testAuth, testAuth.google);
    if (owner.kind !== "session") throw new Error(`expected a session, got ${failure(owner)}`);
    expect(owner.grant.user.id).not.toBe(attacker.id);
    expect(owner.grant.user.email).toBe(victim);
  });

  it("does not lock the owner out: a verified sign-in joins the one account whose email the address is", async () => {
    const testAuth = withProviders();
    await attackersAccountClaimingTheAddress(testAuth);
    const owners = aUser({ email: victim });
    await testAuth.stores.users.insert(owners);
    const owner = await signInThrough(testAuth, testAuth.google);
    expect(owner.kind === "session" && owner.grant.user.id).toBe(owners.id);
  });
});

describe("H2: unlinking the identity the account's email came with", () => {
  /** A confirmed password account that linked a GitHub identity claiming the CEO's address, unverified. */
  async function withUnverifiedLink(testAuth: WithProviders) {
    testAuth.attackersGithub.profile = fakeProfile("gh-attacker", [providerEmail("ceo@bigcorp.example", false)]);
    const { account, principal } = await attackerSignedIn(testAuth);
    const linked = await linkThroughProvider(testAuth, testAuth.attackersGithub, principal);
    expect(linked.kind).toBe("session");
    return { account, principal };
  }

  it("leaves the account no email when no identity left has a verified one: an unverified claim never becomes it", async () => {
    const testAuth = withProviders({ manualLinkingEnabled: true });
    const { account, principal } = await withUnverifiedLink(testAuth);
    const emailIdentity = account.identities[0]!;
    await testAuth.auth.oauth.unlinkIdentity({ principal, identityId: emailIdentity.id, context });

    const after = (await testAuth.stores.users.findById(account.id))!;
    expect(after.email).toBeNull();
    expect(after.emailConfirmedAt).toBeNull();
    await failsWith(
      "invalid_credentials",
      testAuth.auth.signInWithPassword({ email: "ceo@bigcorp.example", password: attackersPassword, context }),
    );
    // The address's owner can still sign up with it.
    const signedUp = await testAuth.auth.signUp({ email: "ceo@bigcorp.example", password: ownersPassword, context });
    expect(signedUp.kind === "user" && signedUp.user.id).not.toBe(account.id);
  });

  it("takes a verified identity's address instead, confirmed now by its provider, not by the old confirmation", async () => {
    const testAuth = withProviders({ manualLinkingEnabled: true });
    const { account, principal } = await withUnverifiedLink(testAuth);
    testAuth.clock.advance({ minutes: 10 });
    testAuth.google.profile = fakeProfile("go-mallory", [providerEmail("mallory@gmail.example", true)]);
    expect((await linkThroughProvider(testAuth, testAuth.google, principal)).kind).toBe("session");
    testAuth.clock.advance({ minutes: 10 });
    await testAuth.auth.oauth.unlinkIdentity({ principal, identityId: account.identities[0]!.id, context });

    const after = (await testAuth.stores.users.findById(account.id))!;
    expect(after.email).toBe("mallory@gmail.example");
    expect(after.emailConfirmedAt).toEqual(testAuth.clock.now());
  });

  it("changes nothing of the email when the identity unlinked had another address", async () => {
    const testAuth = withProviders({ manualLinkingEnabled: true });
    const { account, principal } = await withUnverifiedLink(testAuth);
    const github = (await testAuth.stores.identities.find("github", "gh-attacker"))!;
    await testAuth.auth.oauth.unlinkIdentity({ principal, identityId: github.id, context });
    const after = (await testAuth.stores.users.findById(account.id))!;
    expect(after.email).toBe(account.email);
    expect(after.emailConfirmedAt).toEqual(account.emailConfirmedAt);
  });
});

describe("M2: POST /token?grant_type=id_token with link_identity", () => {
  it("is refused as manual_linking_disabled while SECURITY_MANUAL_LINKING_ENABLED is off, linking nothing", async () => {
    const google = new FakeOAuthProvider({
      name: "google",
      profile: fakeProfile("go-1", [providerEmail("ada@gmail.example", true)]),
      idTokens: { skipNonceCheck: true },
    });
    const testAuth = createTestAuth({ ports: { oauthProviders: new Map([[google.name, google]]) } });
    const account = aUser({ passwordHash: await testAuth.hasher.hash(ownersPassword) });
    await testAuth.stores.users.insert(account);
    const grant = await testAuth.auth.signInWithPassword({ email: account.email!, password: ownersPassword, context });
    const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });

    const error = await failsWith(
      "manual_linking_disabled",
      testAuth.auth.oauth.signInWithIdToken({
        provider: "google",
        idToken: "eyJ.x.y",
        linkingTarget: principal,
        context,
      }),
    );
    expect(error.message).toBe("Manual linking is disabled");
    expect(google.verifiedIdTokens).toHaveLength(0);
    expect((await testAuth.stores.users.findById(account.id))?.identities).toHaveLength(1);
  });
});

describe("L4: linking and unlinking with a second factor verified", () => {
  it("needs an aal2 session: a password alone adds or removes no way in", async () => {
    const testAuth = withProviders({ manualLinkingEnabled: true });
    testAuth.google.profile = fakeProfile("go-ada", [providerEmail("ada@gmail.example", true)]);
    const account = aUser({ email: "ada@example.com", passwordHash: await testAuth.hasher.hash(ownersPassword) });
    await testAuth.stores.users.insert(account);
    const signIn = () =>
      testAuth.auth.signInWithPassword({ email: "ada@example.com", password: ownersPassword, context });
    const first = await testAuth.auth.authenticate({ accessToken: (await signIn()).accessToken });
    const enrolled = await testAuth.auth.mfa.enroll({
      principal: first,
      factorType: "totp",
      friendlyName: undefined,
      issuer: undefined,
      phone: undefined,
      context,
    });
    if (!("totp" in enrolled)) throw new Error("expected a TOTP enrollment");
    const factorId = enrolled.factor.id;
    const challenge = await testAuth.auth.mfa.challenge({ principal: first, factorId, channel: undefined, context });
    const code = totpCode(enrolled.totp.secret, totpStep(testAuth.clock.now()));
    const raised = await testAuth.auth.mfa.verify({
      principal: first,
      factorId,
      challengeId: challenge.id,
      code,
      context,
    });

    // A new sign-in with the password only: aal1.
    const aal1 = await testAuth.auth.authenticate({ accessToken: (await signIn()).accessToken });
    expect(aal1.session?.aal).toBe("aal1");
    const refused = await linkThroughProvider(testAuth, testAuth.google, aal1).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "insufficient_aal" });
    await failsWith(
      "insufficient_aal",
      testAuth.auth.oauth.unlinkIdentity({ principal: aal1, identityId: account.identities[0]!.id, context }),
    );

    const aal2 = await testAuth.auth.authenticate({ accessToken: raised.accessToken });
    expect(aal2.session?.aal).toBe("aal2");
    expect((await linkThroughProvider(testAuth, testAuth.google, aal2)).kind).toBe("session");
  });
});

describe("M3 and L1: an OAuth flow completed in another browser", () => {
  it("L1: a sign-in's callback opened where /authorize was not refuses, signing no one in", async () => {
    const testAuth = withProviders();
    testAuth.attackersGithub.profile = fakeProfile("gh-mallory", [providerEmail("mallory@evil.example", true)]);
    // The attacker starts a sign-in, stops at the callback URL, and has the victim open it.
    await testAuth.auth.oauth.start({ provider: "github", params: [] });
    const params = { state: testAuth.attackersGithub.lastState, code: "abc" };
    const opened = testAuth.auth.oauth.complete({ params, context, browserBinding: undefined });
    const error = await failsWith("bad_oauth_state", opened);
    expect(error.message).toBe("OAuth state was not started in this browser");
    expect(await testAuth.stores.users.findByEmail("mallory@evil.example")).toBeNull();
    // Used up: not even the attacker's browser can finish it now.
    await failsWith("bad_oauth_state", testAuth.auth.oauth.complete({ params, context }));
  });

  it("M3: a link asked for without PKCE is refused, before the provider is asked", async () => {
    const testAuth = withProviders({ manualLinkingEnabled: true });
    const { principal } = await attackerSignedIn(testAuth);
    const error = await failsWith(
      "validation_failed",
      testAuth.auth.oauth.start({ provider: "google", params: [], linkingTarget: principal }),
    );
    expect(error.message).toContain("PKCE");
    expect(testAuth.google.authorizeRequests).toHaveLength(0);
  });

  it("M3: the attacker's link URL completed by the victim at the provider links the victim's identity to no one", async () => {
    const testAuth = withProviders({ manualLinkingEnabled: true });
    const { account, principal: attacker } = await attackerSignedIn(testAuth);
    await testAuth.auth.oauth.start({
      provider: "google",
      params: [],
      linkingTarget: attacker,
      codeChallenge: PKCE_EXAMPLE.challenge,
      codeChallengeMethod: "s256",
    });
    // The victim signs in at Google through the attacker's URL: the callback runs in the victim's browser.
    const called = await testAuth.auth.oauth.complete({
      params: { state: testAuth.google.lastState, code: "abc" },
      context,
      browserBinding: undefined,
    });
    if (called.kind !== "auth_code") throw new Error(`expected a code, got ${called.kind}`);
    expect(await testAuth.stores.identities.find("google", "go-victim")).toBeNull();
    // The code lands in the victim's browser, whose app holds no verifier of the attacker's.
    await failsWith(
      "bad_code_verifier",
      testAuth.auth.exchangeAuthCode({ authCode: called.authCode, codeVerifier: "v".repeat(43), context }),
    );
    expect(await testAuth.stores.identities.find("google", "go-victim")).toBeNull();
    expect((await testAuth.stores.users.findById(account.id))?.identities.map((each) => each.provider)).toEqual([
      "email",
    ]);
  });
});
