import { describe, expect, it } from "vitest";
import type { SessionGrant } from "../../deps.ts";
import { aUser } from "../../testing/builders.ts";
import type { TestAuth, TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { FakeAuthenticator } from "../../testing/fake-webauthn.ts";
import { principalOf, signedIn as signedInWithPassword, TEST_PASSWORD } from "../../testing/signed-in.ts";

const password = TEST_PASSWORD;
const admin = { role: "service_role", userId: null, claims: {} };

/** A confirmed user with a password, signed in once, and an authenticator of theirs. */
/** A user signed in with a password, and an authenticator of theirs. */
async function signedIn(options: TestAuthOptions = {}) {
  return { ...(await signedInWithPassword(options)), authenticator: new FakeAuthenticator() };
}

/** Registers a passkey of `authenticator` for the grant's user. */
async function register(testAuth: TestAuth, grant: SessionGrant, authenticator: FakeAuthenticator) {
  const principal = await principalOf(testAuth, grant);
  const begun = await testAuth.auth.passkeys.startRegistration({ principal });
  const credential = authenticator.create(begun.options);
  return testAuth.auth.passkeys.verifyRegistration({ principal, challengeId: begun.challengeId, credential, context });
}

/** Signs in with the passkey `authenticator` holds for `userId`. */
async function signInWith(testAuth: TestAuth, authenticator: FakeAuthenticator, userId: string, signCount?: number) {
  const begun = await testAuth.auth.passkeys.startSignIn({ context });
  const credential = authenticator.get(begun.options, userId, signCount);
  return testAuth.auth.passkeys.signIn({ challengeId: begun.challengeId, credential, context });
}

describe("registering a passkey", () => {
  it("asks for a discoverable credential that excludes the user's passkeys, and keeps what verifies", async () => {
    const testAuth = await signedIn();
    const first = await register(testAuth, testAuth.grant, testAuth.authenticator);
    expect(first).toMatchObject({ userId: testAuth.user.id, friendlyName: "Passkey", lastUsedAt: null });
    const begun = await testAuth.auth.passkeys.startRegistration({
      principal: await principalOf(testAuth, testAuth.grant),
    });
    expect(begun.options["authenticatorSelection"]).toMatchObject({
      residentKey: "required",
      userVerification: "preferred",
    });
    expect(begun.options["excludeCredentials"]).toEqual([{ id: first.credentialId, type: "public-key" }]);
    expect(begun.expiresAt.getTime() - testAuth.clock.now().getTime()).toBe(300_000);
    const audit = await testAuth.stores.auditLog.list({ page: 1, perPage: 10 });
    expect(audit.entries.map((entry) => entry.action)).toContain("passkey_created");
  });

  it("uses a challenge once, for the user and session that asked, until it expires", async () => {
    const testAuth = await signedIn();
    const principal = await principalOf(testAuth, testAuth.grant);
    const begun = await testAuth.auth.passkeys.startRegistration({ principal });
    const credential = testAuth.authenticator.create(begun.options);
    const answer = { principal, challengeId: begun.challengeId, credential, context };
    // Another session of the same user cannot answer it, and using it so spends it.
    const other = await testAuth.auth.signInWithPassword({ email: testAuth.user.email!, password, context });
    const elsewhere = { ...answer, principal: await principalOf(testAuth, other) };
    await failsWith("webauthn_challenge_not_found", testAuth.auth.passkeys.verifyRegistration(elsewhere));
    await failsWith("webauthn_challenge_not_found", testAuth.auth.passkeys.verifyRegistration(answer));

    const late = await testAuth.auth.passkeys.startRegistration({ principal });
    testAuth.clock.advance({ seconds: 301 });
    const lateAnswer = {
      ...answer,
      challengeId: late.challengeId,
      credential: testAuth.authenticator.create(late.options),
    };
    await failsWith("webauthn_challenge_expired", testAuth.auth.passkeys.verifyRegistration(lateAnswer));
    await failsWith("webauthn_challenge_not_found", testAuth.auth.passkeys.verifyRegistration(lateAnswer));
  });

  it("refuses an answer to another challenge, a malformed one, and past PASSKEY_MAX_PASSKEYS_PER_USER", async () => {
    const testAuth = await signedIn({ policy: { passkeys: { maxPerUser: 1 } } });
    const principal = await principalOf(testAuth, testAuth.grant);
    const begun = await testAuth.auth.passkeys.startRegistration({ principal });
    const other = await testAuth.auth.passkeys.startRegistration({ principal });
    const credential = testAuth.authenticator.create(other.options);
    await failsWith(
      "webauthn_verification_failed",
      testAuth.auth.passkeys.verifyRegistration({ principal, challengeId: begun.challengeId, credential, context }),
    );
    await failsWith(
      "validation_failed",
      testAuth.auth.passkeys.verifyRegistration({ principal, challengeId: "nope", credential, context }),
    );
    await register(testAuth, testAuth.grant, testAuth.authenticator);
    await failsWith("too_many_passkeys", register(testAuth, testAuth.grant, new FakeAuthenticator()));
  });

  it("needs aal2 once the user has a verified factor, and is refused with passkeys off", async () => {
    const testAuth = await signedIn();
    const principal = await principalOf(testAuth, testAuth.grant);
    const withFactor = { ...principal, user: { ...principal.user, factors: [{ status: "verified" } as never] } };
    await failsWith("insufficient_aal", testAuth.auth.passkeys.startRegistration({ principal: withFactor }));
    const off = await signedIn({ policy: { passkeys: { enabled: false } } });
    await failsWith(
      "passkey_disabled",
      off.auth.passkeys.startRegistration({ principal: await principalOf(off, off.grant) }),
    );
  });
});

describe("signing in with a passkey", () => {
  it("opens an aal1 session with amr passkey, and records the use on the passkey", async () => {
    const testAuth = await signedIn();
    const passkey = await register(testAuth, testAuth.grant, testAuth.authenticator);
    testAuth.clock.advance({ seconds: 5 });
    const grant = await signInWith(testAuth, testAuth.authenticator, testAuth.user.id);
    expect(grant.user.id).toBe(testAuth.user.id);
    expect(grant.session.aal).toBe("aal1");
    expect(grant.session.amr.map((entry) => entry.method)).toEqual(["passkey"]);
    const [used] = await testAuth.stores.passkeys.listOfUser(testAuth.user.id);
    expect(used).toMatchObject({ id: passkey.id, signCount: 1, lastUsedAt: testAuth.clock.now() });
    expect(testAuth.events.of("signed_in")).toContainEqual({ kind: "signed_in", method: "passkey" });
  });

  it("refuses a replayed challenge, an unknown credential, and another user's handle, all alike", async () => {
    const testAuth = await signedIn();
    await register(testAuth, testAuth.grant, testAuth.authenticator);
    const begun = await testAuth.auth.passkeys.startSignIn({ context });
    const credential = testAuth.authenticator.get(begun.options, testAuth.user.id);
    await testAuth.auth.passkeys.signIn({ challengeId: begun.challengeId, credential, context });
    await failsWith(
      "webauthn_challenge_not_found",
      testAuth.auth.passkeys.signIn({ challengeId: begun.challengeId, credential, context }),
    );

    const stranger = new FakeAuthenticator();
    stranger.create({ challenge: "x", user: { id: testAuth.user.id } });
    await failsWith("webauthn_verification_failed", signInWith(testAuth, stranger, testAuth.user.id));

    const next = await testAuth.auth.passkeys.startSignIn({ context });
    const lying = { ...testAuth.authenticator.get(next.options, testAuth.user.id), userHandle: crypto.randomUUID() };
    await failsWith(
      "webauthn_verification_failed",
      testAuth.auth.passkeys.signIn({ challengeId: next.challengeId, credential: lying, context }),
    );
  });

  it("refuses, and reports, a signature counter that goes backwards", async () => {
    const testAuth = await signedIn();
    const passkey = await register(testAuth, testAuth.grant, testAuth.authenticator);
    await signInWith(testAuth, testAuth.authenticator, testAuth.user.id, 5);
    await failsWith("webauthn_verification_failed", signInWith(testAuth, testAuth.authenticator, testAuth.user.id, 5));
    await failsWith("webauthn_verification_failed", signInWith(testAuth, testAuth.authenticator, testAuth.user.id, 3));
    expect(testAuth.events.of("webauthn_counter_regressed")).toEqual([
      { kind: "webauthn_counter_regressed", credential: "passkey", id: passkey.id, userId: testAuth.user.id },
      { kind: "webauthn_counter_regressed", credential: "passkey", id: passkey.id, userId: testAuth.user.id },
    ]);
    const [kept] = await testAuth.stores.passkeys.listOfUser(testAuth.user.id);
    expect(kept!.signCount).toBe(5);
  });

  it("refuses a banned user, and one whose address is not confirmed", async () => {
    const testAuth = await signedIn();
    await register(testAuth, testAuth.grant, testAuth.authenticator);
    const user = (await testAuth.stores.users.findById(testAuth.user.id))!;
    await testAuth.stores.users.update({ ...user, bannedUntil: new Date(testAuth.clock.now().getTime() + 60_000) });
    await failsWith("user_banned", signInWith(testAuth, testAuth.authenticator, testAuth.user.id));
    await testAuth.stores.users.update({ ...user, emailConfirmedAt: null });
    await failsWith("email_not_confirmed", signInWith(testAuth, testAuth.authenticator, testAuth.user.id));
  });

  it("counts sign-ins begun per client (RATE_LIMIT_PASSKEY)", async () => {
    const testAuth = await signedIn({ policy: { requestLimits: { passkey: { events: 2, perSeconds: 300 } } } });
    await testAuth.auth.passkeys.startSignIn({ context });
    await testAuth.auth.passkeys.startSignIn({ context });
    await failsWith("over_request_rate_limit", testAuth.auth.passkeys.startSignIn({ context }));
  });
});

describe("managing passkeys", () => {
  it("lists, renames and deletes the user's own passkeys, never another's", async () => {
    const testAuth = await signedIn();
    const passkey = await register(testAuth, testAuth.grant, testAuth.authenticator);
    const principal = await principalOf(testAuth, testAuth.grant);
    const renamed = await testAuth.auth.passkeys.rename({
      principal,
      passkeyId: passkey.id,
      friendlyName: "Laptop",
      context,
    });
    expect(renamed.friendlyName).toBe("Laptop");
    await failsWith(
      "validation_failed",
      testAuth.auth.passkeys.rename({ principal, passkeyId: passkey.id, friendlyName: "x".repeat(121), context }),
    );
    const other = aUser({ passwordHash: await testAuth.hasher.hash(password) });
    await testAuth.stores.users.insert(other);
    const theirGrant = await testAuth.auth.signInWithPassword({ email: other.email!, password, context });
    const theirs = await principalOf(testAuth, theirGrant);
    const error = await failsWith(
      "validation_failed",
      testAuth.auth.passkeys.delete({ principal: theirs, passkeyId: passkey.id, context }),
    );
    expect(error.case).toBe("unknown_passkey");
    expect(await testAuth.auth.passkeys.list({ principal: theirs })).toEqual([]);
    await testAuth.auth.passkeys.delete({ principal, passkeyId: passkey.id, context });
    expect(await testAuth.auth.passkeys.list({ principal })).toEqual([]);
    await failsWith("webauthn_verification_failed", signInWith(testAuth, testAuth.authenticator, testAuth.user.id));
  });

  it("lets an admin list and delete a user's passkeys, recorded as the admin's", async () => {
    const testAuth = await signedIn();
    const passkey = await register(testAuth, testAuth.grant, testAuth.authenticator);
    expect((await testAuth.auth.admin.listPasskeys({ userId: testAuth.user.id })).map((each) => each.id)).toEqual([
      passkey.id,
    ]);
    await testAuth.auth.admin.deletePasskey({ admin, userId: testAuth.user.id, passkeyId: passkey.id, context });
    expect(await testAuth.auth.admin.listPasskeys({ userId: testAuth.user.id })).toEqual([]);
    const audit = await testAuth.stores.auditLog.list({ page: 1, perPage: 10 });
    expect(audit.entries.find((entry) => entry.action === "passkey_deleted")?.traits).toMatchObject({
      user_id: testAuth.user.id,
      passkey_id: passkey.id,
    });
  });
});
