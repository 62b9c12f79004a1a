import { describe, expect, it } from "vitest";
import type { AuthError } from "../../errors.ts";
import type { Identity } from "../../model/identity.ts";
import { OAuthProviderFailure } from "../../ports/oauth-provider.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth, type TestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { FakeOAuthProvider, fakeProfile, providerEmail } from "../../testing/fake-oauth-provider.ts";
import type { CompleteOAuthResult } from "./complete-sign-in.ts";
import type { StartOAuthInput } from "./start-sign-in.ts";

const password = "ada-password";
const siteUrl = "http://localhost:3000";
const challenge = { codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", codeChallengeMethod: "s256" };
const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const admin = { role: "service_role", userId: null, claims: {} };

/** The domain with GitHub (and any other given provider) enabled. */
function withProviders(options: { policy?: TestAuthOptions["policy"]; others?: FakeOAuthProvider[] } = {}) {
  const github = new FakeOAuthProvider();
  const providers = [github, ...(options.others ?? [])];
  const testAuth = createTestAuth({
    policy: options.policy,
    ports: { oauthProviders: new Map(providers.map((provider) => [provider.name, provider])) },
  });
  return { ...testAuth, github };
}

/** /authorize then /callback with the state the provider hands back. */
async function signInThrough(
  testAuth: TestAuth,
  provider: FakeOAuthProvider,
  start: Partial<StartOAuthInput> = {},
  callback: Record<string, string> = {},
): Promise<CompleteOAuthResult> {
  await testAuth.auth.oauth.start({ provider: provider.name, params: [], ...start });
  return testAuth.auth.oauth.complete({
    params: { state: provider.lastState, code: "4/0AbCdEf", ...callback },
    context,
  });
}

function sessionOf(result: CompleteOAuthResult) {
  if (result.kind !== "session") {
    throw new Error(`expected a session, got ${result.kind}${result.kind === "failed" ? ` ${result.error.code}` : ""}`);
  }
  return result;
}

function failureOf(result: CompleteOAuthResult, code: AuthError["code"]): AuthError {
  expect(result.kind).toBe("failed");
  if (result.kind !== "failed") throw new Error("expected a failure");
  expect(result.error.code).toBe(code);
  return result.error;
}

const auditOf = async (testAuth: TestAuth) =>
  (await testAuth.stores.auditLog.list({ page: 1, perPage: 100 })).entries
    .reverse()
    .map((entry) => ({ action: entry.action, actorId: entry.actorId, traits: entry.traits }));

/** A confirmed password account for the address, with its email identity. */
async function passwordAccount(testAuth: TestAuth, email = "ada@example.com") {
  const user = aUser({ email, passwordHash: await testAuth.hasher.hash(password), userMetadata: { plan: "pro" } });
  await testAuth.stores.users.insert(user);
  return user;
}

/** The identity GitHub's sign-in of `subject` would have made, for a user set up by hand. */
function githubIdentity(userId: string, subject: string, email: string | null): Identity {
  const at = new Date("2025-12-01T00:00:00.000Z");
  return {
    id: crypto.randomUUID(),
    userId,
    provider: "github",
    providerId: subject,
    identityData: { sub: subject, ...(email === null ? {} : { email, email_verified: true }), phone_verified: false },
    lastSignInAt: at,
    createdAt: at,
    updatedAt: at,
  };
}

describe("GET /authorize", () => {
  it("refuses a provider nobody has heard of, naming it, as validation_failed", async () => {
    const { auth } = withProviders();
    const error = await failsWith("validation_failed", auth.oauth.start({ provider: "myspace", params: [] }));
    expect(error.message).toBe("Unsupported provider: Provider myspace could not be found");
  });

  it("refuses a known provider that is not enabled with another message, as validation_failed", async () => {
    const { auth } = withProviders();
    const error = await failsWith("validation_failed", auth.oauth.start({ provider: "google", params: [] }));
    expect(error.message).toBe("Unsupported provider: provider is not enabled");
  });

  it("reaches the linkedin provider as linkedin_oidc and in any case, and signs in under its canonical name", async () => {
    const linkedin = new FakeOAuthProvider({ name: "linkedin" });
    const testAuth = withProviders({ others: [linkedin] });
    for (const name of ["linkedin_oidc", "LinkedIn", "LINKEDIN_OIDC"]) {
      await testAuth.auth.oauth.start({ provider: name, params: [] });
    }
    expect(linkedin.authorizeRequests).toHaveLength(3);
    expect(testAuth.github.authorizeRequests).toHaveLength(0);
    const result = sessionOf(await signInThrough(testAuth, linkedin, { provider: "linkedin_oidc" }));
    expect(result.provider).toBe("linkedin");
    expect(result.grant.user.identities.map((identity) => identity.provider)).toEqual(["linkedin"]);
    expect(result.grant.user.appMetadata).toEqual({ provider: "linkedin", providers: ["linkedin"] });
  });

  it("answers the provider's authorize URL, whose state is a new flow's id", async () => {
    const { auth, github } = withProviders();
    const started = await auth.oauth.start({ provider: "github", params: [] });
    expect(started).toMatchObject({ kind: "started" });
    expect(started.kind === "started" && started.url).toBe(
      `https://github.example/authorize?state=${github.lastState}`,
    );
    expect(github.lastState).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await auth.oauth.start({ provider: "github", params: [] });
    expect(github.authorizeRequests[0]!.state).not.toBe(github.authorizeRequests[1]!.state);
  });

  it("keeps a redirect_to the redirect rule allows, and SITE_URL in place of one it does not", async () => {
    const testAuth = withProviders();
    const allowed = await signInThrough(testAuth, testAuth.github, { redirectTo: [`${siteUrl}/welcome`] });
    expect(allowed.redirectTo).toBe(`${siteUrl}/welcome`);
    const refused = await signInThrough(testAuth, testAuth.github, { redirectTo: ["https://evil.example/steal"] });
    expect(refused.redirectTo).toBe(siteUrl);
    const none = await signInThrough(testAuth, testAuth.github);
    expect(none.redirectTo).toBe(siteUrl);
  });

  it("passes on the parameters that are not reserved, in the client's order, without ours or the protocol's", async () => {
    const { auth, github } = withProviders();
    const reserved = [
      "client_id",
      "Client_Secret",
      "redirect_uri",
      "state",
      "scope",
      "response_type",
      "code_challenge",
      "code_challenge_method",
      "code_verifier",
      "redirect_to",
      "invite_token",
      "skip_http_redirect",
      "provider",
      "SCOPES",
    ];
    await auth.oauth.start({
      provider: "github",
      params: [
        ["login_hint", "ada@example.com"],
        ...reserved.map((name) => [name, "from-the-client"] as const),
        ["prompt", "consent"],
        ["hd", "example.com"],
        ["nonce", "n-1"],
      ],
    });
    expect(github.authorizeRequests[0]!.params).toEqual([
      ["login_hint", "ada@example.com"],
      ["prompt", "consent"],
      ["hd", "example.com"],
      ["nonce", "n-1"],
    ]);
  });

  it("splits scopes on commas and spaces, dropping empty ones", async () => {
    const { auth, github } = withProviders();
    await auth.oauth.start({ provider: "github", scopes: "repo, read:org  user:email,,gist ", params: [] });
    expect(github.authorizeRequests[0]!.scopes).toEqual(["repo", "read:org", "user:email", "gist"]);
    await auth.oauth.start({ provider: "github", params: [] });
    expect(github.authorizeRequests[1]!.scopes).toEqual([]);
  });

  it("refuses PKCE parameters that are half there or malformed, before asking the provider", async () => {
    const { auth, github } = withProviders();
    const bad = [
      { codeChallenge: challenge.codeChallenge },
      { codeChallengeMethod: "s256" },
      { codeChallenge: challenge.codeChallenge, codeChallengeMethod: "s512" },
      { codeChallenge: "too-short", codeChallengeMethod: "s256" },
    ];
    for (const pkce of bad) {
      await failsWith("validation_failed", auth.oauth.start({ provider: "github", params: [], ...pkce }));
    }
    expect(github.authorizeRequests).toHaveLength(0);
  });

  it("refuses an invite_token that invites nobody as user_not_found", async () => {
    const testAuth = withProviders();
    const error = await failsWith(
      "user_not_found",
      testAuth.auth.oauth.start({ provider: "github", inviteToken: "no-such-invitation", params: [] }),
    );
    expect(error.message).toBe("User identified by token not found");
    // A confirmation link's token is no invitation either.
    await testAuth.auth.signUp({ email: "ada@example.com", password, context });
    const confirmation = (await testAuth.lastEmail("ada@example.com", "confirmation"))!;
    await failsWith(
      "user_not_found",
      testAuth.auth.oauth.start({ provider: "github", inviteToken: confirmation.linkToken, params: [] }),
    );
    expect(testAuth.github.authorizeRequests).toHaveLength(0);
  });

  it("keeps the provider's secret sealed with the flow, never in plain text", async () => {
    const secret = "provider-side-pkce-verifier-0123456789";
    const github = new FakeOAuthProvider({ secret });
    const { auth, stores, ports } = createTestAuth({ ports: { oauthProviders: new Map([["github", github]]) } });
    await auth.oauth.start({ provider: "github", params: [] });
    const flow = (await stores.oauthFlows.take(github.lastState))!;
    expect(flow.sealedSecret).not.toBeNull();
    expect(JSON.stringify(flow)).not.toContain(secret);
    expect(ports.secrets.open(flow.sealedSecret!)).toBe(secret);
  });

  it("hands the provider's secret back to it at the callback, and none when it kept none", async () => {
    const secret = "provider-side-pkce-verifier-0123456789";
    const github = new FakeOAuthProvider({ secret });
    const testAuth = createTestAuth({ ports: { oauthProviders: new Map([["github", github]]) } });
    sessionOf(await signInThrough(testAuth, github));
    expect(github.callbacks[0]!.secret).toBe(secret);
    github.secret = undefined;
    sessionOf(await signInThrough(testAuth, github));
    expect(github.callbacks[1]!.secret).toBeNull();
  });

  it("sends the browser back to the app as service_unavailable when the provider cannot be reached, storing no flow", async () => {
    const github = new FakeOAuthProvider({ failAt: "authorize" });
    const { auth, stores } = createTestAuth({
      ports: { oauthProviders: new Map([["github", github]]) },
      policy: { redirect: { siteUrl: "https://app.example", allowList: ["https://app.example/**"] } },
    });
    const started = await auth.oauth.start({
      provider: "github",
      redirectTo: ["https://app.example/welcome"],
      params: [],
    });
    if (started.kind !== "failed") throw new Error("expected the start to fail");
    expect(started.redirectTo).toBe("https://app.example/welcome");
    expect(started.error).toMatchObject({
      code: "service_unavailable",
      message: "Unable to start the sign-in with the external provider",
    });
    expect(started.error.cause).toBeInstanceOf(OAuthProviderFailure);
    expect(await stores.oauthFlows.take(github.lastState)).toBeNull();
  });
});

describe("GET /callback: the state", () => {
  it("is required: without it the callback fails as bad_oauth_callback", async () => {
    const { auth } = withProviders();
    const error = await failsWith("bad_oauth_callback", auth.oauth.complete({ params: { code: "abc" }, context }));
    expect(error.message).toBe("OAuth state parameter missing");
  });

  it("must be a UUID", async () => {
    const { auth } = withProviders();
    const error = await failsWith(
      "bad_oauth_state",
      auth.oauth.complete({ params: { state: "eyJhbGciOiJIUzI1NiJ9.e30.sig", code: "abc" }, context }),
    );
    expect(error.message).toBe("OAuth state parameter is invalid");
  });

  it("must name a flow this server started", async () => {
    const { auth, github } = withProviders();
    const error = await failsWith(
      "bad_oauth_state",
      auth.oauth.complete({ params: { state: crypto.randomUUID(), code: "abc" }, context }),
    );
    expect(error.message).toBe("OAuth state not found or expired");
    expect(github.callbacks).toHaveLength(0);
  });

  it("works once: a replayed callback is refused, even after the first one failed", async () => {
    const testAuth = withProviders();
    const { auth, github } = testAuth;
    sessionOf(await signInThrough(testAuth, github));
    const replay = auth.oauth.complete({ params: { state: github.lastState, code: "4/0AbCdEf" }, context });
    expect((await failsWith("bad_oauth_state", replay)).message).toBe("OAuth state not found or expired");

    github.failAt = "exchange";
    failureOf(await signInThrough(testAuth, github), "unexpected_failure");
    github.failAt = null;
    await failsWith(
      "bad_oauth_state",
      auth.oauth.complete({ params: { state: github.lastState, code: "x" }, context }),
    );
  });

  it("expires 300 seconds after /authorize, without the provider being asked", async () => {
    const { auth, clock, github } = withProviders();
    await auth.oauth.start({ provider: "github", params: [] });
    clock.advance({ seconds: 300 });
    const error = await failsWith(
      "bad_oauth_state",
      auth.oauth.complete({ params: { state: github.lastState, code: "abc" }, context }),
    );
    expect(error.message).toBe("OAuth state has expired");
    expect(github.callbacks).toHaveLength(0);

    await auth.oauth.start({ provider: "github", params: [] });
    clock.advance({ seconds: 299 });
    sessionOf(await auth.oauth.complete({ params: { state: github.lastState, code: "abc" }, context }));
  });
});

describe("GET /callback: the provider's answer", () => {
  it("passes the provider's own refusal on to the flow's target, asking it nothing more", async () => {
    const testAuth = withProviders();
    const result = await signInThrough(
      testAuth,
      testAuth.github,
      { redirectTo: [`${siteUrl}/welcome`] },
      { error: "access_denied", error_description: "The user has denied your application access." },
    );
    expect(result).toEqual({
      kind: "provider_error",
      redirectTo: `${siteUrl}/welcome`,
      error: "access_denied",
      description: "The user has denied your application access.",
    });
    expect(testAuth.github.callbacks).toHaveLength(0);
    expect(await testAuth.stores.users.findByEmail("ada@example.com")).toBeNull();
  });

  it("fails at the flow's target with the code's first four characters when the code cannot be exchanged", async () => {
    const testAuth = withProviders();
    testAuth.github.failAt = "exchange";
    const result = await signInThrough(testAuth, testAuth.github, { redirectTo: [`${siteUrl}/welcome`] });
    const error = failureOf(result, "unexpected_failure");
    expect(error.message).toBe("Unable to exchange external code: 4/0A");
    expect(error.message).not.toContain("own words");
    expect(error.cause).toBeInstanceOf(OAuthProviderFailure);
    expect(result.redirectTo).toBe(`${siteUrl}/welcome`);
    expect(await testAuth.stores.users.findByEmail("ada@example.com")).toBeNull();
  });

  it("fails with GoTrue's message when the profile cannot be read", async () => {
    const testAuth = withProviders();
    testAuth.github.failAt = "profile";
    const error = failureOf(await signInThrough(testAuth, testAuth.github), "unexpected_failure");
    expect(error.message).toBe("Error getting user profile from external provider");
    expect(await testAuth.stores.users.findByEmail("ada@example.com")).toBeNull();
  });

  it("hands the provider the callback's parameters", async () => {
    const testAuth = withProviders();
    await signInThrough(testAuth, testAuth.github, {}, { code: "the-code", user: '{"name":{}}' });
    expect(testAuth.github.callbacks[0]!.params).toEqual({
      state: testAuth.github.lastState,
      code: "the-code",
      user: '{"name":{}}',
    });
  });
});

describe("a provider sign-in of someone new", () => {
  it("creates the account: the identity, GoTrue's app_metadata and user_metadata, the address confirmed", async () => {
    const testAuth = withProviders();
    const result = sessionOf(await signInThrough(testAuth, testAuth.github));
    const now = testAuth.clock.now();
    const identityData = {
      iss: "https://provider.example",
      sub: "1001",
      provider_id: "1001",
      full_name: "Ada Lovelace",
      user_name: "ada",
      email: "ada@example.com",
      email_verified: true,
      phone_verified: false,
    };
    const { user } = result.grant;
    expect(user).toMatchObject({
      email: "ada@example.com",
      emailConfirmedAt: now,
      lastSignInAt: now,
      isAnonymous: false,
      passwordHash: null,
      appMetadata: { provider: "github", providers: ["github"] },
      userMetadata: identityData,
    });
    expect(user.identities).toHaveLength(1);
    expect(user.identities[0]).toMatchObject({ provider: "github", providerId: "1001", identityData, userId: user.id });
    expect(await testAuth.stores.users.findById(user.id)).toMatchObject({
      email: "ada@example.com",
      emailConfirmedAt: now,
    });
    expect(await auditOf(testAuth)).toContainEqual({
      action: "user_signedup",
      actorId: user.id,
      traits: { provider: "github" },
    });
  });

  it("opens an oauth session and hands over the provider's tokens", async () => {
    const testAuth = withProviders();
    const result = sessionOf(await signInThrough(testAuth, testAuth.github));
    expect(result.provider).toBe("github");
    expect(result.tokens).toEqual({ accessToken: "provider-access-token", refreshToken: "provider-refresh-token" });
    expect(result.grant.session.amr[0]?.method).toBe("oauth");
    const principal = await testAuth.auth.authenticate({ accessToken: result.grant.accessToken });
    expect(principal.user.id).toBe(result.grant.user.id);
  });

  it("goes by the provider's primary address, lower-cased", async () => {
    const testAuth = withProviders();
    testAuth.github.profile = fakeProfile("1001", [
      providerEmail("ada@work.example", true, false),
      providerEmail("Ada@Example.COM", true, true),
    ]);
    const { user } = sessionOf(await signInThrough(testAuth, testAuth.github)).grant;
    expect(user.email).toBe("ada@example.com");
    expect(user.identities[0]!.identityData).toMatchObject({ email: "ada@example.com", email_verified: true });
  });

  it("records the provider's phone_verified claim, and false without one", async () => {
    const testAuth = withProviders();
    const without = sessionOf(await signInThrough(testAuth, testAuth.github)).grant.user;
    expect(without.userMetadata).toMatchObject({ phone_verified: false });
    testAuth.github.profile = fakeProfile("2002", [providerEmail("grace@example.com", true)], { phone_verified: true });
    const { user } = sessionOf(await signInThrough(testAuth, testAuth.github)).grant;
    expect(user.userMetadata).toMatchObject({ phone_verified: true });
    expect(user.identities[0]!.identityData).toMatchObject({ phone_verified: true });
  });

  it("with an address the provider did not verify: mails a confirmation and fails until it is followed", async () => {
    const testAuth = withProviders();
    testAuth.github.profile = fakeProfile("1001", [providerEmail("ada@example.com", false)]);
    const result = await signInThrough(testAuth, testAuth.github, { redirectTo: [`${siteUrl}/welcome`] });
    const error = failureOf(result, "provider_email_needs_verification");
    expect(error.message).toBe("Unverified email with github. A confirmation email has been sent to your github email");
    expect(result.redirectTo).toBe(`${siteUrl}/welcome`);

    const pending = (await testAuth.stores.users.findByEmail("ada@example.com"))!;
    expect(pending).toMatchObject({ emailConfirmedAt: null, confirmationSentAt: testAuth.clock.now() });
    expect(pending.identities.map((identity) => [identity.provider, identity.providerId])).toEqual([
      ["github", "1001"],
    ]);
    const mail = (await testAuth.lastEmail("ada@example.com", "confirmation"))!;
    expect(mail.redirectTo).toBe(`${siteUrl}/welcome`);

    const confirmed = await testAuth.auth.verify({
      type: "signup",
      proof: { linkToken: mail.linkToken },
      followedLink: true,
      context,
    });
    expect(confirmed.kind === "session" && confirmed.grant.user).toMatchObject({ id: pending.id });
    const again = sessionOf(await signInThrough(testAuth, testAuth.github));
    expect(again.grant.user.id).toBe(pending.id);
  });

  it("with an unverified address, is not mailed again and again by repeated sign-ins", async () => {
    const testAuth = withProviders();
    testAuth.github.profile = fakeProfile("1001", [providerEmail("ada@example.com", false)]);
    failureOf(await signInThrough(testAuth, testAuth.github), "provider_email_needs_verification");
    for (let attempt = 0; attempt < 5; attempt++) {
      failureOf(await signInThrough(testAuth, testAuth.github), "over_email_send_rate_limit");
    }
    const mails = (await testAuth.emails()).filter((email) => email.to === "ada@example.com");
    expect(mails).toHaveLength(1);
    testAuth.clock.advance({ seconds: testAuth.policy.otp.emailConfirmationFrequencySeconds });
    failureOf(await signInThrough(testAuth, testAuth.github), "provider_email_needs_verification");
    expect((await testAuth.emails()).filter((email) => email.to === "ada@example.com")).toHaveLength(2);
  });

  it("takes every address as verified when email sign-ups need no confirmation (MAILER_AUTOCONFIRM)", async () => {
    const testAuth = withProviders({ policy: { signup: { emailAutoconfirm: true } } });
    testAuth.github.profile = fakeProfile("1001", [providerEmail("ada@example.com", false)]);
    const { user } = sessionOf(await signInThrough(testAuth, testAuth.github)).grant;
    expect(user.emailConfirmedAt).toEqual(testAuth.clock.now());
    expect(await testAuth.lastEmail("ada@example.com", "confirmation")).toBeUndefined();
  });

  it("is refused as signup_disabled under DISABLE_SIGNUP, creating nothing", async () => {
    const testAuth = withProviders({ policy: { signup: { disabled: true } } });
    const error = failureOf(await signInThrough(testAuth, testAuth.github), "signup_disabled");
    expect(error.message).toBe("Signups not allowed for this instance");
    expect(await testAuth.stores.users.findByEmail("ada@example.com")).toBeNull();
    expect(await testAuth.stores.identities.find("github", "1001")).toBeNull();
  });

  it("without an email is refused as email_address_not_provided, unless the provider's email is optional", async () => {
    const testAuth = withProviders();
    testAuth.github.profile = fakeProfile("1001", [], { user_name: "ada" });
    const error = failureOf(await signInThrough(testAuth, testAuth.github), "email_address_not_provided");
    expect(error.message).toBe("Error getting user email from external provider");
    expect(await testAuth.stores.identities.find("github", "1001")).toBeNull();

    const optional = new FakeOAuthProvider({
      emailOptional: true,
      profile: fakeProfile("1001", [], { user_name: "ada" }),
    });
    const other = createTestAuth({ ports: { oauthProviders: new Map([["github", optional]]) } });
    const { user } = sessionOf(await signInThrough(other, optional)).grant;
    expect(user.email).toBeNull();
    expect(user.identities[0]!.identityData).not.toHaveProperty("email");
    expect(user.identities[0]!.identityData).toMatchObject({ email_verified: false, user_name: "ada" });
    expect(user.appMetadata).toEqual({ provider: "github", providers: ["github"] });
    expect(sessionOf(await signInThrough(other, optional)).grant.user.id).toBe(user.id);
  });

  it("without an email, is recorded as a signup all the same", async () => {
    const optional = new FakeOAuthProvider({ emailOptional: true, profile: fakeProfile("1001", []) });
    const testAuth = createTestAuth({ ports: { oauthProviders: new Map([["github", optional]]) } });
    const { user } = sessionOf(await signInThrough(testAuth, optional)).grant;
    expect(await auditOf(testAuth)).toContainEqual({
      action: "user_signedup",
      actorId: user.id,
      traits: { provider: "github" },
    });
  });
});

describe("a provider sign-in of a returning identity", () => {
  it("signs the same user in: identity data replaced, user_metadata merged, last sign-in moved, login audited", async () => {
    const testAuth = withProviders();
    const first = sessionOf(await signInThrough(testAuth, testAuth.github)).grant.user;
    testAuth.clock.advance({ hours: 2 });
    testAuth.github.profile = fakeProfile("1001", [providerEmail("ada@example.com", true)], {
      full_name: "Ada King",
      avatar_url: "https://avatars.example/ada.png",
    });
    const { user } = sessionOf(await signInThrough(testAuth, testAuth.github)).grant;
    const now = testAuth.clock.now();
    expect(user.id).toBe(first.id);
    expect(user.lastSignInAt).toEqual(now);
    expect(user.identities).toHaveLength(1);
    expect(user.identities[0]!.id).toBe(first.identities[0]!.id);
    expect(user.identities[0]!.createdAt).toEqual(first.identities[0]!.createdAt);
    expect(user.identities[0]!.identityData).toEqual({
      iss: "https://provider.example",
      sub: "1001",
      provider_id: "1001",
      full_name: "Ada King",
      avatar_url: "https://avatars.example/ada.png",
      email: "ada@example.com",
      email_verified: true,
      phone_verified: false,
    });
    // Merged: the new claims win, what the new sign-in does not say stays.
    expect(user.userMetadata).toMatchObject({
      full_name: "Ada King",
      avatar_url: "https://avatars.example/ada.png",
      user_name: "ada",
    });
    expect((await testAuth.stores.users.findById(user.id))?.lastSignInAt).toEqual(now);
    expect((await auditOf(testAuth)).at(-1)).toEqual({
      action: "login",
      actorId: user.id,
      traits: { provider: "github" },
    });
  });

  it("still signs in under DISABLE_SIGNUP", async () => {
    const testAuth = withProviders({ policy: { signup: { disabled: true } } });
    const user = aUser({ email: "ada@example.com" });
    await testAuth.stores.users.insert({ ...user, identities: [githubIdentity(user.id, "1001", "ada@example.com")] });
    expect(sessionOf(await signInThrough(testAuth, testAuth.github)).grant.user.id).toBe(user.id);
  });

  it("is refused as user_banned while the user is banned", async () => {
    const testAuth = withProviders();
    const { user } = sessionOf(await signInThrough(testAuth, testAuth.github)).grant;
    const bannedUntil = new Date(testAuth.clock.now().getTime() + 3_600_000);
    await testAuth.stores.users.update({ ...(await testAuth.stores.users.findById(user.id))!, bannedUntil });
    const error = failureOf(await signInThrough(testAuth, testAuth.github), "user_banned");
    expect(error.message).toBe("User is banned");
    testAuth.clock.advance({ hours: 2 });
    expect(sessionOf(await signInThrough(testAuth, testAuth.github)).grant.user.id).toBe(user.id);
  });
});

describe("automatic linking by address", () => {
  it("adds the identity to the confirmed account holding the address the provider verified", async () => {
    const testAuth = withProviders();
    const account = await passwordAccount(testAuth);
    testAuth.github.profile = fakeProfile("1001", [providerEmail("ADA@example.com", true)], { full_name: "Ada" });
    const { user } = sessionOf(await signInThrough(testAuth, testAuth.github)).grant;
    expect(user.id).toBe(account.id);
    expect(user.appMetadata).toEqual({ provider: "email", providers: ["email", "github"] });
    expect(user.identities.map((identity) => identity.provider)).toEqual(["email", "github"]);
    expect(user.userMetadata).toMatchObject({ plan: "pro", full_name: "Ada" });
    expect(user.emailConfirmedAt).toEqual(account.emailConfirmedAt);
    const github = user.identities.find((identity) => identity.provider === "github")!;
    expect(await auditOf(testAuth)).toContainEqual({
      action: "identity_linked",
      actorId: account.id,
      traits: { identity_id: github.id, provider: "github", provider_id: "1001" },
    });
    // The password still works: linking took nothing away.
    const signedIn = await testAuth.auth.signInWithPassword({ email: "ada@example.com", password, context });
    expect(signedIn.user.id).toBe(account.id);
  });

  it("finds the account through another identity's address too", async () => {
    const testAuth = withProviders({ others: [new FakeOAuthProvider({ name: "gitlab" })] });
    const account = aUser({ email: "ada@work.example" });
    const gitlab: Identity = {
      ...githubIdentity(account.id, "gl-7", "ada@example.com"),
      provider: "gitlab",
    };
    await testAuth.stores.users.insert({ ...account, identities: [...account.identities, gitlab] });
    const { user } = sessionOf(await signInThrough(testAuth, testAuth.github)).grant;
    expect(user.id).toBe(account.id);
    expect(user.email).toBe("ada@work.example");
    expect(user.appMetadata["providers"]).toEqual(["gitlab", "email", "github"]);
  });

  it("never links on an address the provider did not verify, and makes no account without it", async () => {
    const testAuth = withProviders();
    const victim = await passwordAccount(testAuth);
    testAuth.github.profile = fakeProfile("666", [providerEmail("ada@example.com", false)], { full_name: "Mallory" });
    const error = failureOf(await signInThrough(testAuth, testAuth.github), "provider_email_needs_verification");
    // The address is the victim's: there is none to confirm, so nothing is mailed and nothing is kept.
    expect(error.message).toBe("Unverified email with github. Verify the email with github in order to sign in");
    expect(await testAuth.stores.identities.find("github", "666")).toBeNull();

    const after = (await testAuth.stores.users.findById(victim.id))!;
    expect(after.identities.map((identity) => identity.provider)).toEqual(["email"]);
    expect(after.userMetadata).toEqual({ plan: "pro" });
    expect(after.appMetadata).toEqual(victim.appMetadata);
    expect(after.passwordHash).toBe(victim.passwordHash);
    expect(await testAuth.lastEmail("ada@example.com", "confirmation")).toBeUndefined();
    await testAuth.auth.signInWithPassword({ email: "ada@example.com", password, context });
  });

  it("with MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS, signs the unverified claimant into an account of its own", async () => {
    const testAuth = withProviders({ policy: { signup: { allowUnverifiedEmailSignIns: true } } });
    const victim = await passwordAccount(testAuth);
    testAuth.github.profile = fakeProfile("666", [providerEmail("ada@example.com", false)], { full_name: "Mallory" });
    const { grant } = sessionOf(await signInThrough(testAuth, testAuth.github));
    expect(grant.user.id).not.toBe(victim.id);
    expect(grant.user.email).toBeNull();
    expect((await testAuth.stores.users.findById(victim.id))!.identities.map((each) => each.provider)).toEqual([
      "email",
    ]);
  });

  it("with MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS, signs a new person in at once, the address waiting for its mail", async () => {
    const testAuth = withProviders({ policy: { signup: { allowUnverifiedEmailSignIns: true } } });
    testAuth.github.profile = fakeProfile("777", [providerEmail("new@example.com", false)]);
    const { grant } = sessionOf(await signInThrough(testAuth, testAuth.github));
    expect(grant.user).toMatchObject({ email: "new@example.com", emailConfirmedAt: null });
    expect(await testAuth.lastEmail("new@example.com", "confirmation")).toBeDefined();
  });

  it("refuses as email_exists when several accounts hold the verified addresses, linking nothing", async () => {
    const testAuth = withProviders();
    await passwordAccount(testAuth, "ada@example.com");
    await passwordAccount(testAuth, "ada@work.example");
    testAuth.github.profile = fakeProfile("1001", [
      providerEmail("ada@example.com", true, true),
      providerEmail("ada@work.example", true, false),
    ]);
    const error = failureOf(await signInThrough(testAuth, testAuth.github), "email_exists");
    expect(error.message).toBe(
      "Multiple accounts with the same email address in the same linking domain detected: default",
    );
    expect(await testAuth.stores.identities.find("github", "1001")).toBeNull();
  });
});

describe("pre-account takeover through a provider sign-in", () => {
  it("gives an unconfirmed password account to whoever proves its address through the provider, password gone", async () => {
    const testAuth = withProviders();
    const signedUp = await testAuth.auth.signUp({
      email: "ada@example.com",
      password: "attacker-knows-this",
      data: { plan: "forged" },
      context,
    });
    if (signedUp.kind !== "user") throw new Error("expected an account awaiting confirmation");
    testAuth.clock.advance({ hours: 1 });
    const { user } = sessionOf(await signInThrough(testAuth, testAuth.github)).grant;
    expect(user.id).toBe(signedUp.user.id);
    expect(user.passwordHash).toBeNull();
    expect(user.emailConfirmedAt).toEqual(testAuth.clock.now());
    expect(user.identities.map((identity) => identity.provider)).toEqual(["github"]);
    expect(user.appMetadata).toEqual({ provider: "github", providers: ["github"] });
    expect(user.userMetadata).toEqual(user.identities[0]!.identityData);
    const stored = (await testAuth.stores.users.findById(user.id))!;
    expect(stored.passwordHash).toBeNull();
    expect(stored.identities.map((identity) => identity.provider)).toEqual(["github"]);
    await failsWith(
      "invalid_credentials",
      testAuth.auth.signInWithPassword({ email: "ada@example.com", password: "attacker-knows-this", context }),
    );
    expect((await auditOf(testAuth)).at(-1)).toEqual({
      action: "user_signedup",
      actorId: user.id,
      traits: { provider: "github" },
    });
  });

  it("drops the identity and data an unverified provider sign-in put on the account", async () => {
    const gitlab = new FakeOAuthProvider({
      name: "gitlab",
      profile: fakeProfile("mallory", [providerEmail("ada@example.com", false)], { full_name: "Pay Mallory" }),
    });
    const testAuth = withProviders({ others: [gitlab] });
    failureOf(await signInThrough(testAuth, gitlab), "provider_email_needs_verification");
    const pending = (await testAuth.stores.users.findByEmail("ada@example.com"))!;
    expect(pending.userMetadata).toMatchObject({ full_name: "Pay Mallory" });

    testAuth.clock.advance({ hours: 1 });
    const { user } = sessionOf(await signInThrough(testAuth, testAuth.github)).grant;
    expect(user.id).toBe(pending.id);
    expect(user.identities.map((identity) => identity.provider)).toEqual(["github"]);
    expect(user.userMetadata).not.toHaveProperty("full_name", "Pay Mallory");
    expect(user.appMetadata).toEqual({ provider: "github", providers: ["github"] });
    expect(await testAuth.stores.identities.find("gitlab", "mallory")).toBeNull();

    // Back at GitLab, the attacker's unverified claim of the owner's address gets nothing.
    failureOf(await signInThrough(testAuth, gitlab), "provider_email_needs_verification");
    expect(await testAuth.stores.identities.find("gitlab", "mallory")).toBeNull();
  });
});

describe("an invitation accepted through a provider", () => {
  async function invited() {
    const testAuth = withProviders();
    await testAuth.auth.inviteUser({ admin, email: "ada@example.com", context });
    const invite = (await testAuth.lastEmail("ada@example.com", "invite"))!;
    const user = (await testAuth.stores.users.findByEmail("ada@example.com"))!;
    return { ...testAuth, inviteToken: invite.linkToken, invitedId: user.id };
  }

  it("confirms the invited account when one of the provider's addresses is the invited one, in any case", async () => {
    const testAuth = await invited();
    testAuth.github.profile = fakeProfile("1001", [
      providerEmail("ada@github.example", true, true),
      providerEmail("ADA@Example.com", false, false),
    ]);
    const { user } = sessionOf(
      await signInThrough(testAuth, testAuth.github, { inviteToken: testAuth.inviteToken }),
    ).grant;
    expect(user.id).toBe(testAuth.invitedId);
    expect(user.email).toBe("ada@example.com");
    expect(user.emailConfirmedAt).toEqual(testAuth.clock.now());
    expect(user.appMetadata["providers"]).toContain("github");
    expect(await auditOf(testAuth)).toContainEqual({
      action: "invite_accepted",
      actorId: testAuth.invitedId,
      traits: { provider: "github" },
    });
    // Used up.
    await failsWith(
      "user_not_found",
      testAuth.auth.oauth.start({ provider: "github", inviteToken: testAuth.inviteToken, params: [] }),
    );
  });

  it("is refused when none of the provider's addresses is the invited one", async () => {
    const testAuth = await invited();
    testAuth.github.profile = fakeProfile("1001", [providerEmail("mallory@example.com", true)]);
    const result = await signInThrough(testAuth, testAuth.github, { inviteToken: testAuth.inviteToken });
    const error = failureOf(result, "validation_failed");
    expect(error.message).toBe("Invited email does not match emails from external provider");
    const user = (await testAuth.stores.users.findById(testAuth.invitedId))!;
    expect(user.emailConfirmedAt).toBeNull();
    expect(user.identities.some((identity) => identity.provider === "github")).toBe(false);
    expect(await testAuth.stores.identities.find("github", "1001")).toBeNull();
  });
});

describe("PKCE through a provider", () => {
  it("ends the callback with a code, which the verifier trades for an oauth session with the provider's tokens", async () => {
    const testAuth = withProviders();
    const result = await signInThrough(testAuth, testAuth.github, { ...challenge, redirectTo: [`${siteUrl}/cb`] });
    if (result.kind !== "auth_code") throw new Error(`expected a code, got ${result.kind}`);
    expect(result.redirectTo).toBe(`${siteUrl}/cb`);
    const grant = await testAuth.auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context });
    expect(grant.session.amr[0]?.method).toBe("oauth");
    expect(grant.providerTokens).toEqual({
      accessToken: "provider-access-token",
      refreshToken: "provider-refresh-token",
    });
    expect(grant.user.email).toBe("ada@example.com");
    expect(grant.user.identities.map((identity) => identity.provider)).toEqual(["github"]);
  });

  it("hands over a null refresh token when the provider issued none", async () => {
    const testAuth = withProviders();
    testAuth.github.tokens = { accessToken: "only-access", refreshToken: null };
    const result = await signInThrough(testAuth, testAuth.github, challenge);
    if (result.kind !== "auth_code") throw new Error("expected a code");
    const grant = await testAuth.auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context });
    expect(grant.providerTokens).toEqual({ accessToken: "only-access", refreshToken: null });
  });

  it("refuses a wrong verifier, after which the code is spent", async () => {
    const testAuth = withProviders();
    const result = await signInThrough(testAuth, testAuth.github, challenge);
    if (result.kind !== "auth_code") throw new Error("expected a code");
    const wrong = "x".repeat(43);
    await failsWith(
      "bad_code_verifier",
      testAuth.auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: wrong, context }),
    );
    await failsWith(
      "flow_state_not_found",
      testAuth.auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context }),
    );
  });

  it("trades a code once", async () => {
    const testAuth = withProviders();
    const result = await signInThrough(testAuth, testAuth.github, challenge);
    if (result.kind !== "auth_code") throw new Error("expected a code");
    await testAuth.auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context });
    await failsWith(
      "flow_state_not_found",
      testAuth.auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context }),
    );
  });

  it("counts the code's five minutes from /authorize", async () => {
    const testAuth = withProviders();
    await testAuth.auth.oauth.start({ provider: "github", params: [], ...challenge });
    testAuth.clock.advance({ seconds: 200 });
    const result = await testAuth.auth.oauth.complete({
      params: { state: testAuth.github.lastState, code: "abc" },
      context,
    });
    if (result.kind !== "auth_code") throw new Error("expected a code");
    testAuth.clock.advance({ seconds: 100 });
    await failsWith(
      "flow_state_expired",
      testAuth.auth.exchangeAuthCode({ authCode: result.authCode, codeVerifier: verifier, context }),
    );
  });
});
