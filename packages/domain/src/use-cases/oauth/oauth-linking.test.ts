import { describe, expect, it } from "vitest";
import type { AuthError } from "../../errors.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth, type TestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { FakeOAuthProvider, fakeProfile, providerEmail } from "../../testing/fake-oauth-provider.ts";
import { type LinkOutcome, linkThroughProvider } from "../../testing/link-through-provider.ts";
import type { CompleteOAuthResult } from "./complete-sign-in.ts";

const password = "ada-password";

/** GitHub, Google and GitLab enabled; manual linking on unless the policy says otherwise. */
function withProviders(policy: TestAuthOptions["policy"] = {}) {
  const github = new FakeOAuthProvider({
    profile: fakeProfile("gh-1", [providerEmail("ada@github.example", true)], { user_name: "ada" }),
  });
  const google = new FakeOAuthProvider({
    name: "google",
    profile: fakeProfile("go-1", [providerEmail("ada@gmail.example", true)]),
  });
  const gitlab = new FakeOAuthProvider({
    name: "gitlab",
    profile: fakeProfile("gl-1", [providerEmail("ada@gitlab.example", true)]),
  });
  const testAuth = createTestAuth({
    policy: { manualLinkingEnabled: true, ...policy },
    ports: { oauthProviders: new Map([github, google, gitlab].map((provider) => [provider.name, provider])) },
  });
  return { ...testAuth, github, google, gitlab };
}

type LinkingAuth = ReturnType<typeof withProviders>;

/** A confirmed password account, signed in: the principal of its requests. */
async function signedIn(testAuth: TestAuth, email = "ada@example.com") {
  const user = aUser({ email, passwordHash: await testAuth.hasher.hash(password) });
  await testAuth.stores.users.insert(user);
  const grant = await testAuth.auth.signInWithPassword({ email, password, context });
  return testAuth.auth.authenticate({ accessToken: grant.accessToken });
}

/** GET /user/identities/authorize, /callback, then the code exchanged. */
const linkThrough = linkThroughProvider;

/** /authorize then /callback, signing in. */
async function signInThrough(testAuth: TestAuth, provider: FakeOAuthProvider) {
  await testAuth.auth.oauth.start({ provider: provider.name, params: [] });
  return testAuth.auth.oauth.complete({ params: { state: provider.lastState, code: "abc" }, context });
}

function sessionOf<R extends CompleteOAuthResult | LinkOutcome>(result: R): Extract<R, { kind: "session" }> {
  if (result.kind !== "session") {
    throw new Error(`expected a session, got ${result.kind}${result.kind === "failed" ? ` ${result.error.code}` : ""}`);
  }
  return result as Extract<R, { kind: "session" }>;
}

function failureOf(result: CompleteOAuthResult | LinkOutcome, code: AuthError["code"]): AuthError {
  expect(result.kind).toBe("failed");
  if (result.kind !== "failed") throw new Error("expected a failure");
  expect(result.error.code).toBe(code);
  return result.error;
}

const auditOf = async (testAuth: TestAuth) =>
  (await testAuth.stores.auditLog.list({ page: 1, perPage: 100 })).entries
    .reverse()
    .map((entry) => ({ action: entry.action, actorId: entry.actorId, traits: entry.traits }));

/** A user made by a GitHub sign-in, then given Google and GitLab too, signed in. */
async function withThreeIdentities(testAuth: LinkingAuth) {
  const { grant } = sessionOf(await signInThrough(testAuth, testAuth.github));
  const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
  testAuth.clock.advance({ minutes: 1 });
  sessionOf(await linkThrough(testAuth, testAuth.google, principal));
  testAuth.clock.advance({ minutes: 1 });
  sessionOf(await linkThrough(testAuth, testAuth.gitlab, principal));
  const user = (await testAuth.stores.users.findById(grant.user.id))!;
  const identity = (provider: string) => user.identities.find((each) => each.provider === provider)!;
  return { user, principal, identity };
}

describe("manual linking while SECURITY_MANUAL_LINKING_ENABLED is off", () => {
  it("refuses to start a link as manual_linking_disabled, before asking the provider", async () => {
    const testAuth = withProviders({ manualLinkingEnabled: false });
    const principal = await signedIn(testAuth);
    const error = await failsWith(
      "manual_linking_disabled",
      testAuth.auth.oauth.start({ provider: "github", params: [], linkingTarget: principal }),
    );
    expect(error.message).toBe("Manual linking is disabled");
    expect(testAuth.github.authorizeRequests).toHaveLength(0);
  });

  it("refuses to unlink as manual_linking_disabled", async () => {
    const testAuth = withProviders({ manualLinkingEnabled: false });
    const principal = await signedIn(testAuth);
    await failsWith(
      "manual_linking_disabled",
      testAuth.auth.oauth.unlinkIdentity({ principal, identityId: principal.user.identities[0]!.id, context }),
    );
    expect((await testAuth.stores.users.findById(principal.user.id))?.identities).toHaveLength(1);
  });
});

describe("manual linking", () => {
  it("adds the provider's identity to the signed-in user and signs that user in", async () => {
    const testAuth = withProviders();
    const principal = await signedIn(testAuth);
    const result = sessionOf(await linkThrough(testAuth, testAuth.github, principal));
    const { user } = result.grant;
    expect(user.id).toBe(principal.user.id);
    expect(user.email).toBe("ada@example.com");
    expect(user.identities.map((identity) => [identity.provider, identity.providerId])).toEqual([
      ["email", principal.user.id],
      ["github", "gh-1"],
    ]);
    expect(user.appMetadata).toEqual({ provider: "email", providers: ["email", "github"] });
    expect(result.grant.providerTokens).toEqual(testAuth.github.tokens);
    const github = user.identities.find((identity) => identity.provider === "github")!;
    expect(await auditOf(testAuth)).toContainEqual({
      action: "identity_linked",
      actorId: user.id,
      traits: { identity_id: github.id, provider: "github", provider_id: "gh-1" },
    });
    // From now on, GitHub signs this user in.
    expect(sessionOf(await signInThrough(testAuth, testAuth.github)).grant.user.id).toBe(user.id);
  });

  it("links to the signed-in user even when another account holds the provider's verified address", async () => {
    const testAuth = withProviders();
    const other = await signedIn(testAuth, "ada@github.example");
    const principal = await signedIn(testAuth);
    const { user } = sessionOf(await linkThrough(testAuth, testAuth.github, principal)).grant;
    expect(user.id).toBe(principal.user.id);
    expect((await testAuth.stores.users.findById(other.user.id))?.identities).toHaveLength(1);
  });

  it("refuses an identity another user has, as identity_already_exists", async () => {
    const testAuth = withProviders();
    const owner = sessionOf(await signInThrough(testAuth, testAuth.github)).grant.user;
    const principal = await signedIn(testAuth);
    const error = failureOf(await linkThrough(testAuth, testAuth.github, principal), "identity_already_exists");
    expect(error.message).toBe("Identity is already linked to another user");
    expect((await testAuth.stores.identities.find("github", "gh-1"))?.userId).toBe(owner.id);
    expect((await testAuth.stores.users.findById(principal.user.id))?.identities).toHaveLength(1);
  });

  it("refuses an identity the user already has, saying so", async () => {
    const testAuth = withProviders();
    const principal = await signedIn(testAuth);
    sessionOf(await linkThrough(testAuth, testAuth.github, principal));
    const error = failureOf(await linkThrough(testAuth, testAuth.github, principal), "identity_already_exists");
    expect(error.message).toBe("Identity is already linked");
  });

  it("makes an anonymous user permanent with the provider's verified address", async () => {
    const testAuth = withProviders({ signup: { anonymousEnabled: true } });
    const anonymous = await testAuth.auth.signUp({ context });
    if (anonymous.kind !== "session") throw new Error("expected an anonymous session");
    const principal = await testAuth.auth.authenticate({ accessToken: anonymous.grant.accessToken });
    expect(principal.user.isAnonymous).toBe(true);
    const { user } = sessionOf(await linkThrough(testAuth, testAuth.github, principal)).grant;
    expect(user).toMatchObject({
      id: principal.user.id,
      isAnonymous: false,
      email: "ada@github.example",
      emailConfirmedAt: testAuth.clock.now(),
      appMetadata: { provider: "github", providers: ["github"] },
    });
    expect(await testAuth.stores.users.findByEmail("ada@github.example")).toMatchObject({
      id: principal.user.id,
      isAnonymous: false,
    });
  });

  it("gives an anonymous user an unverified address only after a confirmation mail, failing as email_not_confirmed", async () => {
    const testAuth = withProviders({ signup: { anonymousEnabled: true } });
    const anonymous = await testAuth.auth.signUp({ context });
    if (anonymous.kind !== "session") throw new Error("expected an anonymous session");
    const principal = await testAuth.auth.authenticate({ accessToken: anonymous.grant.accessToken });
    testAuth.github.profile = fakeProfile("gh-1", [providerEmail("ada@github.example", false)]);
    const error = failureOf(await linkThrough(testAuth, testAuth.github, principal), "email_not_confirmed");
    expect(error.message).toBe("Unverified email with github. A confirmation email has been sent to your github email");
    const user = (await testAuth.stores.users.findById(principal.user.id))!;
    expect(user).toMatchObject({ email: "ada@github.example", emailConfirmedAt: null, isAnonymous: true });
    expect(user.identities.map((identity) => identity.provider)).toEqual(["github"]);
    expect(await testAuth.lastEmail("ada@github.example", "confirmation")).toBeDefined();
  });

  it("refuses to give an anonymous user an address another account has, as email_exists", async () => {
    const testAuth = withProviders({ signup: { anonymousEnabled: true } });
    await signedIn(testAuth, "ada@github.example");
    const anonymous = await testAuth.auth.signUp({ context });
    if (anonymous.kind !== "session") throw new Error("expected an anonymous session");
    const principal = await testAuth.auth.authenticate({ accessToken: anonymous.grant.accessToken });
    failureOf(await linkThrough(testAuth, testAuth.github, principal), "email_exists");
    expect(await testAuth.stores.identities.find("github", "gh-1")).toBeNull();
    expect((await testAuth.stores.users.findById(principal.user.id))?.email).toBeNull();
  });
});

describe("DELETE /user/identities/<id>", () => {
  it("refuses an id that is no UUID as validation_failed, case malformed_id", async () => {
    const testAuth = withProviders();
    const { principal } = await withThreeIdentities(testAuth);
    const error = await failsWith(
      "validation_failed",
      testAuth.auth.oauth.unlinkIdentity({ principal, identityId: "gh-1", context }),
    );
    expect(error.case).toBe("malformed_id");
    expect(error.message).toBe("identity_id must be an UUID");
  });

  it("refuses to take a user's last identity", async () => {
    const testAuth = withProviders();
    const principal = await signedIn(testAuth);
    const error = await failsWith(
      "single_identity_not_deletable",
      testAuth.auth.oauth.unlinkIdentity({ principal, identityId: principal.user.identities[0]!.id, context }),
    );
    expect(error.message).toBe("User must have at least 1 identity after unlinking");
  });

  it("does not find another user's identity", async () => {
    const testAuth = withProviders();
    const { principal } = await withThreeIdentities(testAuth);
    const other = await signedIn(testAuth, "grace@example.com");
    const error = await failsWith(
      "identity_not_found",
      testAuth.auth.oauth.unlinkIdentity({ principal, identityId: other.user.identities[0]!.id, context }),
    );
    expect(error.message).toBe("Identity doesn't exist");
    expect((await testAuth.stores.users.findById(other.user.id))?.identities).toHaveLength(1);
  });

  it("removes the identity, recomputes the providers, re-derives the email and audits it", async () => {
    const testAuth = withProviders();
    const { user, principal, identity } = await withThreeIdentities(testAuth);
    expect(user.email).toBe("ada@github.example");
    const github = identity("github");
    await testAuth.auth.oauth.unlinkIdentity({ principal, identityId: github.id, context });

    const after = (await testAuth.stores.users.findById(user.id))!;
    expect(after.identities.map((each) => each.provider)).toEqual(["google", "gitlab"]);
    expect(after.appMetadata).toEqual({ provider: "google", providers: ["google", "gitlab"] });
    // The oldest identity left with a verified address gives its address.
    expect(after.email).toBe("ada@gmail.example");
    expect(await testAuth.stores.identities.find("github", "gh-1")).toBeNull();
    expect((await auditOf(testAuth)).at(-1)).toEqual({
      action: "identity_unlinked",
      actorId: user.id,
      traits: { identity_id: github.id, provider: "github", provider_id: "gh-1" },
    });
    // GitHub no longer signs this user in: it makes an account of its own.
    const fresh = await signInThrough(testAuth, testAuth.github);
    expect(fresh.kind === "session" && fresh.grant.user.id).not.toBe(user.id);
  });

  it("prefers a verified identity's address to an older unverified one's", async () => {
    const testAuth = withProviders();
    testAuth.google.profile = fakeProfile("go-1", [providerEmail("ada@gmail.example", false)]);
    const { user, principal, identity } = await withThreeIdentities(testAuth);
    await testAuth.auth.oauth.unlinkIdentity({ principal, identityId: identity("github").id, context });
    expect((await testAuth.stores.users.findById(user.id))?.email).toBe("ada@gitlab.example");
  });

  it("refuses when the address it would fall back to is another account's", async () => {
    const testAuth = withProviders();
    await signedIn(testAuth, "ada@gmail.example");
    await signedIn(testAuth, "ada@gitlab.example");
    const { user, principal, identity } = await withThreeIdentities(testAuth);
    await failsWith(
      "email_conflict_identity_not_deletable",
      testAuth.auth.oauth.unlinkIdentity({ principal, identityId: identity("github").id, context }),
    );
    expect((await testAuth.stores.users.findById(user.id))?.identities).toHaveLength(3);
  });
});

describe("identity notifications", () => {
  it("tell the account's address of a linked and an unlinked sign-in method, when switched on", async () => {
    const testAuth = withProviders({
      email: { notifications: { identity_linked: true, identity_unlinked: true } },
    });
    const principal = await signedIn(testAuth);
    sessionOf(await linkThrough(testAuth, testAuth.github, principal));
    const github = (await testAuth.stores.users.findByEmail("ada@example.com"))!.identities.find(
      (identity) => identity.provider === "github",
    )!;
    await testAuth.auth.oauth.unlinkIdentity({ principal, identityId: github.id, context });
    expect((await testAuth.emails()).filter((mail) => mail.kind.startsWith("identity_"))).toEqual([
      { kind: "identity_linked", to: "ada@example.com", provider: "github" },
      { kind: "identity_unlinked", to: "ada@example.com", provider: "github" },
    ]);
  });

  it("tell of an automatic link too, and stay quiet when switched off", async () => {
    const quiet = withProviders();
    const principal = await signedIn(quiet, "ada@github.example");
    const { grant } = sessionOf(await signInThrough(quiet, quiet.github));
    expect(grant.user.id).toBe(principal.user.id);
    expect((await quiet.emails()).filter((mail) => mail.kind.startsWith("identity_"))).toEqual([]);

    const told = withProviders({ email: { notifications: { identity_linked: true } } });
    await signedIn(told, "ada@github.example");
    sessionOf(await signInThrough(told, told.github));
    expect((await told.emails()).filter((mail) => mail.kind.startsWith("identity_"))).toEqual([
      { kind: "identity_linked", to: "ada@github.example", provider: "github" },
    ]);
  });
});
