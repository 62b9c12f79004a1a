import { describe, expect, it } from "vitest";
import type { AdminPrincipal, SessionGrant } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { hookError, readHookAnswer } from "../../model/hook-answer.ts";
import type { HookAnswer, HookCaller, HookName, HookPayload } from "../../ports/hooks.ts";
import type { Stores } from "../../ports/stores.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth, type TestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { FakeOAuthProvider, fakeProfile, providerEmail } from "../../testing/fake-oauth-provider.ts";
import { RaisedInFunction } from "../../testing/in-memory/stores/hook-functions.ts";
import { totpCode, totpStep } from "../../testing/test-totp.ts";

// The hooks as the flows call them: what each is sent, when, and what its answer does to the request. The hooks
// here are scripted HookCallers (an HTTP endpoint as the domain sees it), and, for a function in the database, a
// tiny caller over the in-memory hookFunctions store, as createFunctionHook (adapters-postgres) is.

const password = "s3cret-pass";
const admin: AdminPrincipal = { role: "service_role", userId: null, claims: {} };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const challenge = { codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", codeChallengeMethod: "s256" };
const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

/** A payload or answer as JSON: read field by field. */
type Json = any;
type Script = (payload: Json, stores: Stores) => HookAnswer | Promise<HookAnswer>;

/** A hook that answers as its script says (changeable between requests) and records every payload, as sent. */
class ScriptedHook implements HookCaller {
  readonly uri = "https://hooks.example/test";
  readonly calls: Json[] = [];
  constructor(public script: Script = () => ({})) {}

  async call(payload: HookPayload, stores: Stores): Promise<HookAnswer> {
    // Through JSON, as over the wire: what the hook reads is what the payload serializes to.
    const sent = JSON.parse(JSON.stringify(payload));
    this.calls.push(sent);
    return this.script(sent, stores);
  }

  get last(): Json {
    return this.calls.at(-1);
  }
}

/** The claims an access token carries (the test signer's tokens are plain JWTs). */
function claimsOf(accessToken: string): Json {
  return JSON.parse(Buffer.from(accessToken.split(".")[1]!, "base64url").toString());
}

function withHooks(hooks: { [N in HookName]?: HookCaller }, options: TestAuthOptions = {}) {
  const github = new FakeOAuthProvider();
  const google = new FakeOAuthProvider({
    name: "google",
    profile: fakeProfile("go-1", [providerEmail("grace@example.com", true)], { full_name: "Grace Hopper" }),
    idTokens: {},
  });
  const testAuth = createTestAuth({
    policy: options.policy,
    ports: {
      oauthProviders: new Map([github, google].map((provider) => [provider.name, provider])),
      ...options.ports,
      hooks,
    },
  });
  return { ...testAuth, github, google };
}
type WithHooks = ReturnType<typeof withHooks>;

/** A confirmed account with a password (and a confirmed phone). */
async function passwordAccount(testAuth: TestAuth, overrides: Parameters<typeof aUser>[0] = {}) {
  const user = aUser({ passwordHash: await testAuth.hasher.hash(password), ...overrides });
  await testAuth.stores.users.insert(user);
  return user;
}

/** /authorize then /callback; a failure the callback reports is thrown. */
async function oauthSignIn(testAuth: WithHooks, start: { codeChallenge?: string; codeChallengeMethod?: string } = {}) {
  await testAuth.auth.oauth.start({ provider: "github", params: [], ...start });
  const result = await testAuth.auth.oauth.complete({
    params: { state: testAuth.github.lastState, code: "4/0AbCdEf" },
    context,
  });
  if (result.kind === "failed") throw result.error;
  return result;
}

async function oauthGrant(testAuth: WithHooks): Promise<SessionGrant> {
  const result = await oauthSignIn(testAuth);
  if (result.kind !== "session") throw new Error(`expected a session, got ${result.kind}`);
  return result.grant;
}

let idTokens = 0;
const idTokenGrant = (testAuth: WithHooks) =>
  testAuth.auth.oauth.signInWithIdToken({ provider: "google", idToken: `eyJ.id.token-${++idTokens}`, context });

/** The session a verification signs in with. */
async function verifiedSession(testAuth: TestAuth, input: Parameters<TestAuth["auth"]["verify"]>[0]) {
  const verified = await testAuth.auth.verify(input);
  if (verified.kind !== "session") throw new Error("expected a session");
  return verified.grant;
}

async function totpEnrolled(testAuth: TestAuth, grant: SessionGrant) {
  const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
  const enrolled = await testAuth.auth.mfa.enroll({
    principal,
    factorType: "totp",
    friendlyName: undefined,
    issuer: undefined,
    phone: undefined,
    context,
  });
  if (!("totp" in enrolled)) throw new Error("expected a TOTP enrollment");
  return enrolled;
}

/** A challenge of the factor, answered with `code` (the right one now, unless given). */
async function answerTotp(
  testAuth: TestAuth,
  grant: SessionGrant,
  factor: { id: string; secret: string },
  code?: string,
) {
  const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
  const challenged = await testAuth.auth.mfa.challenge({ principal, factorId: factor.id, channel: undefined, context });
  const right = totpCode(factor.secret, totpStep(testAuth.clock.now()));
  return testAuth.auth.mfa.verify({
    principal,
    factorId: factor.id,
    challengeId: challenged.id,
    code: code ?? right,
    context,
  });
}

/** A code that is not `code`. */
const wrongFor = (code: string) => (code === "000000" ? "111111" : "000000");

/** Whether the session a failed request's hook saw (by its claims) was left in the store. */
async function sessionKept(testAuth: TestAuth, payload: Json): Promise<boolean> {
  const found = await testAuth.stores.users.findWithSession(payload.user_id, payload.claims.session_id);
  return found?.session != null;
}

const auditTotal = async (testAuth: TestAuth) => (await testAuth.stores.auditLog.list({ page: 1, perPage: 100 })).total;

// --- custom_access_token -------------------------------------------------------------------------------------------

/** The hook most operators write: our claims, and a role of their own. */
function addsRole() {
  const seen: boolean[] = [];
  const hook = new ScriptedHook(async (payload, stores) => {
    // Called in the transaction that wrote the session: the stores it is given see it.
    const found = await stores.users.findWithSession(payload.user_id, payload.claims.session_id);
    seen.push(found?.session != null);
    return { claims: { ...payload.claims, user_role: "admin" } };
  });
  return { hook, seenSession: seen };
}

const dropsAal: Script = (payload) => {
  const { aal: _dropped, ...rest } = payload.claims;
  return { claims: rest };
};
const addRole: Script = (payload) => ({ claims: { ...payload.claims, user_role: "admin" } });
const timesOut: Script = () => {
  throw new AuthError("hook_timeout", "Failed to reach hook within maximum time of 5.000000 seconds");
};

describe("custom_access_token: the claims of every grant", () => {
  function customizing(options: TestAuthOptions = {}) {
    const { hook, seenSession } = addsRole();
    return { ...withHooks({ custom_access_token: hook }, options), hook, seenSession };
  }

  /** The grant's token carries the hook's claim on ours, which the hook was sent as GoTrue sends them. */
  function expectCustomized(testAuth: ReturnType<typeof customizing>, grant: SessionGrant, method: string) {
    const claims = claimsOf(grant.accessToken);
    expect(claims["user_role"]).toBe("admin");
    const call = testAuth.hook.last;
    expect(call.metadata).toEqual({
      uuid: expect.stringMatching(UUID),
      time: testAuth.clock.now().toISOString(),
      name: "customize-access-token",
      ip_address: context.ip,
    });
    expect(call.user_id).toBe(grant.user.id);
    expect(call.authentication_method).toBe(method);
    const { user_role: _added, ...ours } = claims;
    // Our full claims went out, and came back as the token's.
    expect(call.claims).toEqual(ours);
    expect(call.claims).toMatchObject({
      sub: grant.user.id,
      session_id: grant.session.id,
      aal: grant.session.aal,
      role: grant.user.role,
      is_anonymous: grant.user.isAnonymous,
    });
    expect(call.claims.exp).toBe(grant.expiresAt);
    expect(testAuth.seenSession.at(-1)).toBe(true);
  }

  it("password sign-in, by email and by phone", async () => {
    const testAuth = customizing();
    const user = await passwordAccount(testAuth, { phone: "+15550104000", phoneConfirmedAt: new Date() });
    expectCustomized(
      testAuth,
      await testAuth.auth.signInWithPassword({ email: user.email!, password, context }),
      "password",
    );
    expectCustomized(
      testAuth,
      await testAuth.auth.signInWithPassword({ phone: "+1 555 010 4000", password, context }),
      "password",
    );
    expect(testAuth.hook.calls).toHaveLength(2);
  });

  it("signup with autoconfirm, by email and by phone", async () => {
    const testAuth = customizing({ policy: { signup: { emailAutoconfirm: true, phoneAutoconfirm: true } } });
    const byEmail = await testAuth.auth.signUp({ email: "ada@example.com", password, context });
    if (byEmail.kind !== "session") throw new Error("expected a session");
    expectCustomized(testAuth, byEmail.grant, "password");
    const byPhone = await testAuth.auth.signUp({ phone: "+15550104444", password, context });
    if (byPhone.kind !== "session") throw new Error("expected a session");
    expectCustomized(testAuth, byPhone.grant, "password");
  });

  it("a signup awaiting confirmation issues no token, and calls no hook", async () => {
    const testAuth = customizing();
    expect((await testAuth.auth.signUp({ email: "ada@example.com", password, context })).kind).toBe("user");
    expect(testAuth.hook.calls).toHaveLength(0);
  });

  it("anonymous sign-in", async () => {
    const testAuth = customizing({ policy: { signup: { anonymousEnabled: true } } });
    const result = await testAuth.auth.signUp({ context });
    if (result.kind !== "session") throw new Error("expected a session");
    expectCustomized(testAuth, result.grant, "anonymous");
    expect(testAuth.hook.last.claims.is_anonymous).toBe(true);
  });

  it("verify: a signup confirmation, a magic link, an email code and an SMS code", async () => {
    const testAuth = customizing();
    await testAuth.auth.signUp({ email: "ada@example.com", password, context });
    const confirmation = (await testAuth.lastEmail("ada@example.com", "confirmation"))!;
    expectCustomized(
      testAuth,
      await verifiedSession(testAuth, {
        type: "signup",
        proof: { linkToken: confirmation.linkToken },
        followedLink: true,
        context,
      }),
      "otp",
    );

    await testAuth.auth.sendMagicLink({ email: "ada@example.com", createUser: false, context });
    const magic = (await testAuth.lastEmail("ada@example.com", "magic_link"))!;
    expectCustomized(
      testAuth,
      await verifiedSession(testAuth, {
        type: "magiclink",
        proof: { linkToken: magic.linkToken },
        followedLink: true,
        context,
      }),
      "otp",
    );

    testAuth.clock.advance({ seconds: 61 });
    await testAuth.auth.sendMagicLink({ email: "ada@example.com", createUser: false, context });
    const code = (await testAuth.lastEmail("ada@example.com", "magic_link"))!;
    expectCustomized(
      testAuth,
      await verifiedSession(testAuth, {
        type: "email",
        proof: { email: "ada@example.com", code: code.otp },
        followedLink: false,
        context,
      }),
      "otp",
    );

    await testAuth.auth.sendSmsOtp({ phone: "+15550104444", createUser: true, context });
    const sms = (await testAuth.lastSms("+15550104444"))!;
    expectCustomized(
      testAuth,
      await verifiedSession(testAuth, {
        type: "sms",
        proof: { phone: "+15550104444", code: sms.otp },
        followedLink: false,
        context,
      }),
      "otp",
    );
  });

  it("a PKCE code exchanged: the flow's method (email/signup for a signup link)", async () => {
    const testAuth = customizing();
    await testAuth.auth.signUp({ email: "ada@example.com", password, ...challenge, context });
    const mail = (await testAuth.lastEmail("ada@example.com", "confirmation"))!;
    const code = await testAuth.auth.verify({
      type: "signup",
      proof: { linkToken: mail.linkToken },
      followedLink: true,
      context,
    });
    if (code.kind !== "auth_code") throw new Error("expected a code");
    // Following the link issued no token.
    expect(testAuth.hook.calls).toHaveLength(0);
    const grant = await testAuth.auth.exchangeAuthCode({ authCode: code.authCode, codeVerifier: verifier, context });
    expectCustomized(testAuth, grant, "email/signup");
  });

  it("OAuth sign-in, straight and through PKCE, and the id_token grant", async () => {
    const testAuth = customizing();
    expectCustomized(testAuth, await oauthGrant(testAuth), "oauth");
    // The same person again: a sign-in, not a signup.
    expectCustomized(testAuth, await oauthGrant(testAuth), "oauth");

    const code = await oauthSignIn(testAuth, challenge);
    if (code.kind !== "auth_code") throw new Error("expected a code");
    const exchanged = await testAuth.auth.exchangeAuthCode({
      authCode: code.authCode,
      codeVerifier: verifier,
      context,
    });
    expectCustomized(testAuth, exchanged, "oauth");

    expectCustomized(testAuth, await idTokenGrant(testAuth), "oauth");
  });

  it("MFA verification: the aal2 token, as totp", async () => {
    const testAuth = customizing();
    const user = await passwordAccount(testAuth);
    const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    const { factor, totp } = await totpEnrolled(testAuth, grant);
    const stepped = await answerTotp(testAuth, grant, { id: factor.id, secret: totp.secret });
    expectCustomized(testAuth, stepped, "totp");
    expect(testAuth.hook.last.claims.aal).toBe("aal2");
    expect(testAuth.hook.last.claims.amr[0].method).toBe("totp");
  });

  it("refresh: the first rotation, and a retry within the reuse interval", async () => {
    const testAuth = customizing();
    const user = await passwordAccount(testAuth);
    const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    testAuth.clock.advance({ minutes: 5 });
    const rotated = await testAuth.auth.refreshSession({ refreshToken: grant.refreshToken, context });
    expectCustomized(testAuth, rotated, "token_refresh");
    testAuth.clock.advance({ seconds: 5 });
    const retried = await testAuth.auth.refreshSession({ refreshToken: grant.refreshToken, context });
    expect(retried.refreshToken).toBe(rotated.refreshToken);
    expectCustomized(testAuth, retried, "token_refresh");
    expect(testAuth.hook.calls.map((call: Json) => call.authentication_method)).toEqual([
      "password",
      "token_refresh",
      "token_refresh",
    ]);
  });

  it("leaves out ip_address when the request's address is unknown", async () => {
    const testAuth = customizing();
    const user = await passwordAccount(testAuth);
    await testAuth.auth.signInWithPassword({
      email: user.email!,
      password,
      context: { ip: null, userAgent: "vitest" },
    });
    expect(testAuth.hook.last.metadata).not.toHaveProperty("ip_address");
  });
});

describe("custom_access_token: a failing hook writes nothing", () => {
  function failingWith(script: Script, options: TestAuthOptions = {}) {
    const hook = new ScriptedHook(script);
    return { ...withHooks({ custom_access_token: hook }, options), hook };
  }

  const expectSchemaFailure = (error: AuthError) => {
    expect(error.message.startsWith("output claims do not conform to the expected schema")).toBe(true);
    expect(error.message).toContain("aal is required");
  };

  it("password sign-in: claims without aal fail it, and no session, sign-in time or log entry is left", async () => {
    const testAuth = failingWith(dropsAal);
    const user = await passwordAccount(testAuth);
    const error = await failsWith(
      "unexpected_failure",
      testAuth.auth.signInWithPassword({ email: user.email!, password, context }),
    );
    expectSchemaFailure(error);
    expect(testAuth.hook.calls).toHaveLength(1);
    expect(await sessionKept(testAuth, testAuth.hook.last)).toBe(false);
    expect((await testAuth.stores.users.findById(user.id))?.lastSignInAt).toBeNull();
    expect(await auditTotal(testAuth)).toBe(0);
  });

  it("signup with autoconfirm: no user is created", async () => {
    const testAuth = failingWith(dropsAal, { policy: { signup: { emailAutoconfirm: true } } });
    expectSchemaFailure(
      await failsWith("unexpected_failure", testAuth.auth.signUp({ email: "ada@example.com", password, context })),
    );
    expect(testAuth.hook.calls).toHaveLength(1);
    expect(await testAuth.stores.users.findByEmail("ada@example.com")).toBeNull();
    expect(await testAuth.stores.users.findById(testAuth.hook.last.user_id)).toBeNull();
    expect(await auditTotal(testAuth)).toBe(0);
    // Nothing is left in the way: the same signup succeeds once the hook answers well.
    testAuth.hook.script = addRole;
    const again = await testAuth.auth.signUp({ email: "ada@example.com", password, context });
    expect(again.kind).toBe("session");
  });

  it("anonymous sign-in: no user is created", async () => {
    const testAuth = failingWith(dropsAal, { policy: { signup: { anonymousEnabled: true } } });
    expectSchemaFailure(await failsWith("unexpected_failure", testAuth.auth.signUp({ context })));
    expect(await testAuth.stores.users.findById(testAuth.hook.last.user_id)).toBeNull();
  });

  it("verify: the link is not used up, and no session is left", async () => {
    const testAuth = failingWith(addRole);
    await testAuth.auth.signUp({ email: "ada@example.com", password, context });
    const mail = (await testAuth.lastEmail("ada@example.com", "confirmation"))!;
    testAuth.hook.script = dropsAal;
    const verify = () =>
      testAuth.auth.verify({ type: "signup", proof: { linkToken: mail.linkToken }, followedLink: true, context });
    expectSchemaFailure(await failsWith("unexpected_failure", verify()));
    expect(await sessionKept(testAuth, testAuth.hook.last)).toBe(false);
    expect((await testAuth.stores.users.findByEmail("ada@example.com"))?.emailConfirmedAt).toBeNull();
    testAuth.hook.script = addRole;
    expect((await verify()).kind).toBe("session");
  });

  it("refresh: the old refresh token still works afterwards", async () => {
    const testAuth = failingWith(addRole);
    const user = await passwordAccount(testAuth);
    const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    testAuth.hook.script = dropsAal;
    testAuth.clock.advance({ minutes: 5 });
    expectSchemaFailure(
      await failsWith(
        "unexpected_failure",
        testAuth.auth.refreshSession({ refreshToken: grant.refreshToken, context }),
      ),
    );
    // Long after the reuse interval: the failed rotation left the token current, not replaced.
    testAuth.clock.advance({ minutes: 5 });
    testAuth.hook.script = addRole;
    const next = await testAuth.auth.refreshSession({ refreshToken: grant.refreshToken, context });
    expect(next.refreshToken).not.toBe(grant.refreshToken);
    expect(next.session.id).toBe(grant.session.id);
    expect(claimsOf(next.accessToken)["user_role"]).toBe("admin");
  });

  it("MFA verification: the factor stays unverified and the session at aal1", async () => {
    const testAuth = failingWith(addRole);
    const user = await passwordAccount(testAuth);
    const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    const { factor, totp } = await totpEnrolled(testAuth, grant);
    testAuth.hook.script = dropsAal;
    await failsWith("unexpected_failure", answerTotp(testAuth, grant, { id: factor.id, secret: totp.secret }));
    const stored = await testAuth.stores.users.findWithSession(user.id, grant.session.id);
    expect(stored?.session?.aal).toBe("aal1");
    expect(stored?.user.factors.find((each) => each.id === factor.id)?.status).toBe("unverified");
    // The aal1 refresh token was not replaced.
    testAuth.hook.script = addRole;
    await testAuth.auth.refreshSession({ refreshToken: grant.refreshToken, context });
  });

  it("a hook that times out: the same error, and nothing written", async () => {
    const testAuth = failingWith(timesOut, { policy: { signup: { emailAutoconfirm: true } } });
    const user = await passwordAccount(testAuth);
    await failsWith("hook_timeout", testAuth.auth.signInWithPassword({ email: user.email!, password, context }));
    expect(await sessionKept(testAuth, testAuth.hook.last)).toBe(false);
    expect((await testAuth.stores.users.findById(user.id))?.lastSignInAt).toBeNull();

    await failsWith("hook_timeout", testAuth.auth.signUp({ email: "ada@example.com", password, context }));
    expect(await testAuth.stores.users.findByEmail("ada@example.com")).toBeNull();

    testAuth.hook.script = addRole;
    const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    testAuth.hook.script = timesOut;
    testAuth.clock.advance({ minutes: 5 });
    await failsWith("hook_timeout", testAuth.auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    testAuth.clock.advance({ minutes: 5 });
    testAuth.hook.script = addRole;
    await testAuth.auth.refreshSession({ refreshToken: grant.refreshToken, context });
  });

  it("an answer without claims: output claims field is missing", async () => {
    const testAuth = failingWith(() => ({ something: "else" }));
    const user = await passwordAccount(testAuth);
    const error = await failsWith(
      "unexpected_failure",
      testAuth.auth.signInWithPassword({ email: user.email!, password, context }),
    );
    expect(error.message).toBe("output claims field is missing");
    expect(await sessionKept(testAuth, testAuth.hook.last)).toBe(false);
  });

  it("claims of the wrong type, or an empty answer, fail alike", async () => {
    const testAuth = failingWith(() => ({ claims: "admin" }));
    const user = await passwordAccount(testAuth);
    await failsWith("unexpected_failure", testAuth.auth.signInWithPassword({ email: user.email!, password, context }));
    testAuth.hook.script = (payload) => ({ claims: { ...payload.claims, exp: "tomorrow" } });
    const wrongType = await failsWith(
      "unexpected_failure",
      testAuth.auth.signInWithPassword({ email: user.email!, password, context }),
    );
    expect(wrongType.message).toContain("exp: Invalid type");
    // GoTrue's cases: a null or empty `claims` (unlike a missing one) fails its schema; so does no answer at all.
    for (const answer of [{ claims: null }, { claims: {} }, null]) {
      testAuth.hook.script = () => answer;
      const error = await failsWith(
        "unexpected_failure",
        testAuth.auth.signInWithPassword({ email: user.email!, password, context }),
      );
      expect(error.message.startsWith("output claims do not conform to the expected schema")).toBe(true);
    }
    expect(await auditTotal(testAuth)).toBe(0);
  });

  it("a hook that breaks its port's promise (throws no AuthError) fails the request without a word of why", async () => {
    const testAuth = failingWith(() => {
      throw new Error("socket hang up: secret internals");
    });
    const user = await passwordAccount(testAuth);
    const error = await failsWith(
      "unexpected_failure",
      testAuth.auth.signInWithPassword({ email: user.email!, password, context }),
    );
    expect(error.message).toBe("Error running hook URI: https://hooks.example/test");
    expect(await sessionKept(testAuth, testAuth.hook.last)).toBe(false);
  });
});

describe("custom_access_token: a function in the database", () => {
  /** A hook of URI pg-functions://postgres/<schema>/<name>, over the stores it is given, as createFunctionHook is. */
  function functionHook(schema: string, name: string, seen: Json[] = []): HookCaller {
    return {
      uri: `pg-functions://postgres/${schema}/${name}`,
      async call(payload, stores) {
        // What the function would see of the transaction it runs in.
        const claims = (payload as Json).claims;
        seen.push(await stores.users.findWithSession(claims.sub, claims.session_id));
        const outcome = await stores.hookFunctions.call({
          schema,
          name,
          payload: JSON.stringify(payload),
          timeoutMs: 1000,
        });
        if (!outcome.ok) {
          if (outcome.code === "P0001") throw hookError(500, outcome.message);
          throw new AuthError("unexpected_failure", `Error running hook URI: ${this.uri}`);
        }
        return readHookAnswer(outcome.answer);
      },
    };
  }

  it("its claims come through, and it runs where the signup's user and session are already written", async () => {
    const seen: Json[] = [];
    const testAuth = withHooks(
      { custom_access_token: functionHook("public", "custom_claims", seen) },
      { policy: { signup: { emailAutoconfirm: true } } },
    );
    const received: Json[] = [];
    testAuth.defineHookFunction("public.custom_claims", (payload) => {
      received.push(payload);
      const event = payload as Json;
      return { claims: { ...event.claims, user_role: "admin" } };
    });
    const result = await testAuth.auth.signUp({ email: "ada@example.com", password, context });
    if (result.kind !== "session") throw new Error("expected a session");
    expect(claimsOf(result.grant.accessToken)["user_role"]).toBe("admin");
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ user_id: result.grant.user.id, authentication_method: "password" });
    expect(seen[0]?.user.email).toBe("ada@example.com");
    expect(seen[0]?.session?.id).toBe(result.grant.session.id);
  });

  it("what it raises fails the signup, and the signup is undone", async () => {
    const testAuth = withHooks(
      { custom_access_token: functionHook("public", "custom_claims") },
      { policy: { signup: { emailAutoconfirm: true } } },
    );
    testAuth.defineHookFunction("public.custom_claims", () => {
      throw new RaisedInFunction("no tokens today");
    });
    const error = await failsWith(
      "unexpected_failure",
      testAuth.auth.signUp({ email: "ada@example.com", password, context }),
    );
    expect(error.message).toBe("no tokens today");
    expect(error.hookStatus).toBe(500);
    expect(await testAuth.stores.users.findByEmail("ada@example.com")).toBeNull();
    expect(await auditTotal(testAuth)).toBe(0);
  });

  it("a missing function fails the request without naming the database's words", async () => {
    const testAuth = withHooks({ custom_access_token: functionHook("public", "nowhere") });
    const user = await passwordAccount(testAuth);
    const error = await failsWith(
      "unexpected_failure",
      testAuth.auth.signInWithPassword({ email: user.email!, password, context }),
    );
    expect(error.message).toBe("Error running hook URI: pg-functions://postgres/public/nowhere");
    expect((await testAuth.stores.users.findById(user.id))?.lastSignInAt).toBeNull();
  });
});

// --- password_verification_attempt ---------------------------------------------------------------------------------

describe("password_verification_attempt", () => {
  function attempts(script: Script = () => ({ decision: "continue" })) {
    const hook = new ScriptedHook(script);
    return { ...withHooks({ password_verification_attempt: hook }), hook };
  }

  it("is told of every check of a found user's password, right or wrong", async () => {
    const testAuth = attempts();
    const user = await passwordAccount(testAuth);
    await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    expect(testAuth.hook.last).toEqual({
      metadata: {
        uuid: expect.stringMatching(UUID),
        time: testAuth.clock.now().toISOString(),
        name: "password-verification",
        ip_address: context.ip,
      },
      user_id: user.id,
      valid: true,
    });
    const error = await failsWith(
      "invalid_credentials",
      testAuth.auth.signInWithPassword({ email: user.email!, password: "wrong-password", context }),
    );
    expect(error.message).toBe("Invalid login credentials");
    expect(testAuth.hook.last).toMatchObject({ user_id: user.id, valid: false });
    expect(testAuth.hook.calls).toHaveLength(2);
  });

  it("is told of an account without a password as a wrong one", async () => {
    const testAuth = attempts();
    const passwordless = aUser({ passwordHash: null });
    await testAuth.stores.users.insert(passwordless);
    await failsWith(
      "invalid_credentials",
      testAuth.auth.signInWithPassword({ email: passwordless.email!, password, context }),
    );
    expect(testAuth.hook.last).toMatchObject({ user_id: passwordless.id, valid: false });
  });

  it("is not called for an address nobody has", async () => {
    const testAuth = attempts();
    await failsWith(
      "invalid_credentials",
      testAuth.auth.signInWithPassword({ email: "nobody@example.com", password, context }),
    );
    await failsWith(
      "invalid_credentials",
      testAuth.auth.signInWithPassword({ phone: "+15550009999", password, context }),
    );
    expect(testAuth.hook.calls).toHaveLength(0);
  });

  it("continue: the password decides, as without the hook", async () => {
    const testAuth = attempts();
    const user = await passwordAccount(testAuth);
    const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    expect(grant.user.id).toBe(user.id);
    await testAuth.auth.authenticate({ accessToken: grant.accessToken });
    // An empty answer is no rejection either.
    testAuth.hook.script = () => null;
    await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
  });

  it("reject: invalid_credentials with the hook's message, even for the right password, and no session", async () => {
    const testAuth = attempts(() => ({ decision: "reject", message: "locked" }));
    const user = await passwordAccount(testAuth);
    for (const tried of [password, "wrong-password"]) {
      const error = await failsWith(
        "invalid_credentials",
        testAuth.auth.signInWithPassword({ email: user.email!, password: tried, context }),
      );
      expect(error.message).toBe("locked");
    }
    expect((await testAuth.stores.users.findById(user.id))?.lastSignInAt).toBeNull();
    expect(await auditTotal(testAuth)).toBe(0);
  });

  it("reject without a message: GoTrue's words", async () => {
    const testAuth = attempts(() => ({ decision: "reject" }));
    const user = await passwordAccount(testAuth);
    const error = await failsWith(
      "invalid_credentials",
      testAuth.auth.signInWithPassword({ email: user.email!, password, context }),
    );
    expect(error.message).toBe("Further password verification attempts will be rejected.");
    testAuth.hook.script = () => ({ decision: "reject", message: "" });
    const empty = await failsWith(
      "invalid_credentials",
      testAuth.auth.signInWithPassword({ email: user.email!, password, context }),
    );
    expect(empty.message).toBe("Further password verification attempts will be rejected.");
  });

  it("should_logout_user ends the user's other sessions; without it they stay", async () => {
    const testAuth = attempts();
    const user = await passwordAccount(testAuth);
    const other = aUser({ passwordHash: await testAuth.hasher.hash(password) });
    await testAuth.stores.users.insert(other);
    const earlier = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    const othersGrant = await testAuth.auth.signInWithPassword({ email: other.email!, password, context });

    testAuth.hook.script = () => ({ decision: "reject", message: "locked" });
    await failsWith("invalid_credentials", testAuth.auth.signInWithPassword({ email: user.email!, password, context }));
    await testAuth.auth.authenticate({ accessToken: earlier.accessToken });

    testAuth.hook.script = () => ({ decision: "reject", message: "locked", should_logout_user: true });
    await failsWith(
      "invalid_credentials",
      testAuth.auth.signInWithPassword({ email: user.email!, password: "wrong-password", context }),
    );
    await failsWith("session_not_found", testAuth.auth.authenticate({ accessToken: earlier.accessToken }));
    await failsWith(
      "refresh_token_not_found",
      testAuth.auth.refreshSession({ refreshToken: earlier.refreshToken, context }),
    );
    // Nobody else's.
    await testAuth.auth.authenticate({ accessToken: othersGrant.accessToken });
  });

  it("a hook's error fails the sign-in with it", async () => {
    const refusal = hookError(429, "slow down");
    const testAuth = attempts(() => {
      throw refusal;
    });
    const user = await passwordAccount(testAuth);
    const error = await failsWith(
      "unknown",
      testAuth.auth.signInWithPassword({ email: user.email!, password, context }),
    );
    expect(error).toBe(refusal);
    expect(error.hookStatus).toBe(429);
    expect((await testAuth.stores.users.findById(user.id))?.lastSignInAt).toBeNull();
  });
});

// --- mfa_verification_attempt --------------------------------------------------------------------------------------

describe("mfa_verification_attempt", () => {
  async function withFactor(script: Script = () => ({ decision: "continue" })) {
    const hook = new ScriptedHook(script);
    const testAuth = withHooks({ mfa_verification_attempt: hook });
    const user = await passwordAccount(testAuth);
    const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    const { factor, totp } = await totpEnrolled(testAuth, grant);
    return { ...testAuth, hook, user, grant, factor: { id: factor.id, secret: totp.secret } };
  }

  it("is told of every code checked, right or wrong", async () => {
    const testAuth = await withFactor();
    const right = totpCode(testAuth.factor.secret, totpStep(testAuth.clock.now()));
    const error = await failsWith(
      "mfa_verification_failed",
      answerTotp(testAuth, testAuth.grant, testAuth.factor, wrongFor(right)),
    );
    expect(error.message).toBe("Invalid TOTP code entered");
    expect(testAuth.hook.last).toEqual({
      metadata: {
        uuid: expect.stringMatching(UUID),
        time: testAuth.clock.now().toISOString(),
        name: "mfa-verification",
        ip_address: context.ip,
      },
      user_id: testAuth.user.id,
      factor_id: testAuth.factor.id,
      factor_type: "totp",
      valid: false,
    });
    const stepped = await answerTotp(testAuth, testAuth.grant, testAuth.factor);
    expect(stepped.session.aal).toBe("aal2");
    expect(testAuth.hook.last).toMatchObject({ factor_id: testAuth.factor.id, valid: true });
    expect(testAuth.hook.calls).toHaveLength(2);
  });

  it("reject: mfa_verification_rejected in GoTrue's words, and every session of the user ends", async () => {
    const testAuth = await withFactor(() => ({ decision: "reject" }));
    const elsewhere = await testAuth.auth.signInWithPassword({ email: testAuth.user.email!, password, context });
    const error = await failsWith("mfa_verification_rejected", answerTotp(testAuth, testAuth.grant, testAuth.factor));
    expect(error.message).toBe("Further MFA verification attempts will be rejected.");
    for (const grant of [testAuth.grant, elsewhere]) {
      await failsWith("session_not_found", testAuth.auth.authenticate({ accessToken: grant.accessToken }));
      await failsWith(
        "refresh_token_not_found",
        testAuth.auth.refreshSession({ refreshToken: grant.refreshToken, context }),
      );
    }
    const factor = (await testAuth.stores.users.findById(testAuth.user.id))?.factors.find(
      (each) => each.id === testAuth.factor.id,
    );
    expect(factor?.status).toBe("unverified");
  });

  it("a phone factor: told as factor_type phone, and its token customized as mfa/phone", async () => {
    const attempts = new ScriptedHook(() => ({ decision: "continue" }));
    const claims = new ScriptedHook(addRole);
    const testAuth = withHooks({ mfa_verification_attempt: attempts, custom_access_token: claims });
    const user = await passwordAccount(testAuth);
    const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
    const phone = "+14155550111";
    const { factor } = await testAuth.auth.mfa.enroll({
      principal,
      factorType: "phone",
      friendlyName: phone,
      issuer: undefined,
      phone,
      context,
    });
    const challenged = await testAuth.auth.mfa.challenge({
      principal,
      factorId: factor.id,
      channel: undefined,
      context,
    });
    const { otp } = testAuth.sms.lastTo(phone)!;
    const verify = (code: string) =>
      testAuth.auth.mfa.verify({ principal, factorId: factor.id, challengeId: challenged.id, code, context });
    await failsWith("mfa_verification_failed", verify(wrongFor(otp)));
    expect(attempts.last).toMatchObject({ user_id: user.id, factor_id: factor.id, factor_type: "phone", valid: false });
    const stepped = await verify(otp);
    expect(attempts.last).toMatchObject({ factor_type: "phone", valid: true });
    expect(claims.last.authentication_method).toBe("mfa/phone");
    expect(claimsOf(stepped.accessToken)).toMatchObject({ aal: "aal2", user_role: "admin" });
  });

  it("reject with a message of its own, for a wrong code too", async () => {
    const testAuth = await withFactor();
    testAuth.hook.script = () => ({ decision: "reject", message: "too many codes" });
    const right = totpCode(testAuth.factor.secret, totpStep(testAuth.clock.now()));
    const error = await failsWith(
      "mfa_verification_rejected",
      answerTotp(testAuth, testAuth.grant, testAuth.factor, wrongFor(right)),
    );
    expect(error.message).toBe("too many codes");
  });
});

// --- before_user_created / after_user_created ----------------------------------------------------------------------

/** Every way an account comes to be, and what enables it. */
const creations: { name: string; options?: TestAuthOptions; create(testAuth: WithHooks): Promise<unknown> }[] = [
  {
    name: "signup awaiting confirmation",
    create: (t) => t.auth.signUp({ email: "ada@example.com", password, data: { plan: "pro" }, context }),
  },
  {
    name: "signup autoconfirmed (email)",
    options: { policy: { signup: { emailAutoconfirm: true } } },
    create: (t) => t.auth.signUp({ email: "ada@example.com", password, data: { plan: "pro" }, context }),
  },
  {
    name: "signup autoconfirmed (phone)",
    options: { policy: { signup: { phoneAutoconfirm: true } } },
    create: (t) => t.auth.signUp({ phone: "+15550104444", password, context }),
  },
  {
    name: "anonymous sign-in",
    options: { policy: { signup: { anonymousEnabled: true } } },
    create: (t) => t.auth.signUp({ data: { plan: "free" }, context }),
  },
  {
    name: "magic link to a new address",
    create: (t) => t.auth.sendMagicLink({ email: "ada@example.com", createUser: true, context }),
  },
  {
    name: "SMS code to a new number",
    create: (t) => t.auth.sendSmsOtp({ phone: "+15550104444", createUser: true, context }),
  },
  {
    name: "admin invite",
    create: (t) => t.auth.inviteUser({ admin, email: "ada@example.com", data: { plan: "pro" }, context }),
  },
  {
    name: "generate_link signup",
    create: (t) => t.auth.admin.generateLink({ admin, type: "signup", email: "ada@example.com", password, context }),
  },
  { name: "OAuth sign-up", create: (t) => oauthSignIn(t) },
  { name: "id_token sign-up", create: (t) => idTokenGrant(t) },
];

describe("before_user_created", () => {
  for (const creation of creations) {
    it(`${creation.name}: is sent the user about to be created, which is then created as sent`, async () => {
      const hook = new ScriptedHook(async (payload, stores) => {
        // Not written yet, even where the hook runs in the transaction that will write it.
        expect(await stores.users.findById(payload.user.id)).toBeNull();
        return {};
      });
      const testAuth = withHooks({ before_user_created: hook }, creation.options);
      await creation.create(testAuth);
      expect(hook.calls).toHaveLength(1);
      const { metadata, user } = hook.last;
      expect(metadata).toEqual({
        uuid: expect.stringMatching(UUID),
        time: testAuth.clock.now().toISOString(),
        name: "before-user-created",
        ip_address: context.ip,
      });
      expect(Object.keys(hook.last).sort()).toEqual(["metadata", "user"]);
      const created = await testAuth.stores.users.findById(user.id);
      expect(created).not.toBeNull();
      // GoTrue's user JSON.
      expect(user).toMatchObject({
        id: created!.id,
        aud: "authenticated",
        role: created!.role,
        email: created!.email ?? "",
        phone: created!.phone ?? "",
        app_metadata: created!.appMetadata,
        is_anonymous: created!.isAnonymous,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(user.user_metadata).toEqual(expect.any(Object));
      expect(user.identities.map((each: Json) => each.provider)).toEqual(
        created!.identities.map((each) => each.provider),
      );
      expect(user).not.toHaveProperty("passwordHash");
      expect(user).not.toHaveProperty("encrypted_password");
    });

    it(`${creation.name}: its error refuses the signup, and nothing is written`, async () => {
      const refusal = hookError(403, "no");
      const hook = new ScriptedHook(() => {
        throw refusal;
      });
      const after = new ScriptedHook();
      const testAuth = withHooks({ before_user_created: hook, after_user_created: after }, creation.options);
      let failure: unknown;
      try {
        await creation.create(testAuth);
      } catch (error) {
        failure = error;
      }
      expect(failure).toBe(refusal);
      expect(refusal).toMatchObject({ code: "unknown", message: "no", hookStatus: 403 });
      expect(await testAuth.stores.users.findById(hook.last.user.id)).toBeNull();
      expect(await testAuth.stores.users.findByEmail("ada@example.com")).toBeNull();
      expect(await testAuth.emails()).toHaveLength(0);
      expect(testAuth.sms.sent).toHaveLength(0);
      expect(await auditTotal(testAuth)).toBe(0);
      expect(after.calls).toHaveLength(0);
    });
  }

  it("the signup's user_metadata and confirmation fields, as GoTrue shows them", async () => {
    const hook = new ScriptedHook();
    const testAuth = withHooks(
      { before_user_created: hook },
      { policy: { signup: { emailAutoconfirm: true, anonymousEnabled: true } } },
    );
    await testAuth.auth.signUp({ email: "ada@example.com", password, data: { plan: "pro" }, context });
    expect(hook.last.user).toMatchObject({
      email: "ada@example.com",
      email_confirmed_at: expect.any(String),
      user_metadata: expect.objectContaining({ plan: "pro" }),
      app_metadata: { provider: "email", providers: ["email"] },
      identities: [expect.objectContaining({ provider: "email", identity_data: expect.any(Object) })],
      is_anonymous: false,
    });
    await testAuth.auth.signUp({ data: { plan: "free" }, context });
    expect(hook.last.user).toMatchObject({ email: "", phone: "", is_anonymous: true, user_metadata: { plan: "free" } });
  });

  it("is not called when no account is created: sign-ins and repeated signups of an existing user", async () => {
    const hook = new ScriptedHook();
    const testAuth = withHooks({ before_user_created: hook });
    const user = await passwordAccount(testAuth, { phone: "+15550104444", phoneConfirmedAt: new Date() });
    await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    await testAuth.auth.sendMagicLink({ email: user.email!, createUser: true, context });
    await testAuth.auth.sendSmsOtp({ phone: "+15550104444", createUser: true, context });
    await testAuth.auth.signUp({ email: user.email!, password, context });
    expect(hook.calls).toHaveLength(0);
    // A provider's person signs up once, then signs in.
    await oauthSignIn(testAuth);
    await oauthSignIn(testAuth);
    expect(hook.calls).toHaveLength(1);
  });
});

describe("after_user_created", () => {
  for (const creation of creations) {
    it(`${creation.name}: is told once the user exists, which it can read`, async () => {
      const found: unknown[] = [];
      const hook = new ScriptedHook(async (payload, stores) => {
        found.push(await stores.users.findById(payload.user.id));
        return {};
      });
      const testAuth = withHooks({ after_user_created: hook }, creation.options);
      await creation.create(testAuth);
      expect(hook.calls).toHaveLength(1);
      expect(hook.last.metadata).toMatchObject({ name: "after-user-created", ip_address: context.ip });
      expect(found[0]).toMatchObject({ id: hook.last.user.id });
    });

    it(`${creation.name}: its failure fails the request, but the user stays`, async () => {
      const refusal = hookError(500, "boom");
      const hook = new ScriptedHook(() => {
        throw refusal;
      });
      const testAuth = withHooks({ after_user_created: hook }, creation.options);
      let failure: unknown;
      try {
        await creation.create(testAuth);
      } catch (error) {
        failure = error;
      }
      expect(failure).toBe(refusal);
      expect(refusal).toMatchObject({ code: "unexpected_failure", message: "boom" });
      expect(await testAuth.stores.users.findById(hook.last.user.id)).not.toBeNull();
    });
  }

  it("is not called for an existing user's sign-in", async () => {
    const hook = new ScriptedHook();
    const testAuth = withHooks({ after_user_created: hook });
    const user = await passwordAccount(testAuth);
    await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    await testAuth.auth.sendMagicLink({ email: user.email!, createUser: true, context });
    expect(hook.calls).toHaveLength(0);
  });
});

describe("hooks that are off", () => {
  /** How many transactions the domain opens. */
  function countingTransactions(testAuth: TestAuth) {
    const counted = { transactions: 0 };
    const run = testAuth.ports.tx.run.bind(testAuth.ports.tx);
    (testAuth.ports.tx as { run: typeof run }).run = (work) => {
      counted.transactions += 1;
      return run(work);
    };
    return counted;
  }

  it("cost nothing: password sign-in, autoconfirmed signup and refresh write in one statement, without a transaction", async () => {
    const off = withHooks({}, { policy: { signup: { emailAutoconfirm: true } } });
    const user = await passwordAccount(off);
    const counted = countingTransactions(off);
    const grant = await off.auth.signInWithPassword({ email: user.email!, password, context });
    await off.auth.signUp({ email: "ada@example.com", password, context });
    off.clock.advance({ minutes: 5 });
    await off.auth.refreshSession({ refreshToken: grant.refreshToken, context });
    expect(counted.transactions).toBe(0);
  });

  it("the other hooks leave those writes alone; custom_access_token moves them into a transaction", async () => {
    const others = withHooks(
      {
        password_verification_attempt: new ScriptedHook(),
        before_user_created: new ScriptedHook(),
        after_user_created: new ScriptedHook(),
      },
      { policy: { signup: { emailAutoconfirm: true } } },
    );
    const user = await passwordAccount(others);
    const counted = countingTransactions(others);
    await others.auth.signInWithPassword({ email: user.email!, password, context });
    await others.auth.signUp({ email: "ada@example.com", password, context });
    expect(counted.transactions).toBe(0);

    const customizing = withHooks({ custom_access_token: new ScriptedHook(addRole) });
    const customer = await passwordAccount(customizing);
    const inTransaction = countingTransactions(customizing);
    await customizing.auth.signInWithPassword({ email: customer.email!, password, context });
    expect(inTransaction.transactions).toBe(1);
  });
});
