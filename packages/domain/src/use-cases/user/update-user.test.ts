import { describe, expect, it } from "vitest";
import { otpDigest } from "../../services/tokens/digests.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { createTestSecrets } from "../../testing/test-secrets.ts";

const password = "s3cret-pass";

async function signedIn(options: TestAuthOptions = {}, overrides: Parameters<typeof aUser>[0] = {}) {
  const testAuth = createTestAuth(options);
  const user = aUser({
    passwordHash: await testAuth.hasher.hash(password),
    userMetadata: { keep: 1, drop: 2 },
    ...overrides,
  });
  await testAuth.stores.users.insert(user);
  const signIn = () => testAuth.auth.signInWithPassword({ email: user.email!, password, context });
  const grant = await signIn();
  const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
  return { ...testAuth, user, grant, principal, signIn };
}

describe("update the user", () => {
  it("merges data into user_metadata, a null removing a key", async () => {
    const { auth, principal, stores, user } = await signedIn();
    const updated = await auth.updateUser({ principal, data: { drop: null, added: { x: 1 } }, context });
    expect(updated.userMetadata).toEqual({ keep: 1, added: { x: 1 } });
    expect((await stores.users.findById(user.id))?.userMetadata).toEqual({ keep: 1, added: { x: 1 } });
  });

  it("changes the password, ends the other sessions and keeps this one", async () => {
    const { auth, principal, grant, signIn, user, stores } = await signedIn();
    const other = await signIn();
    await auth.updateUser({ principal, password: "a brand new one", context });
    await failsWith("session_not_found", auth.authenticate({ accessToken: other.accessToken }));
    expect((await auth.authenticate({ accessToken: grant.accessToken })).user.id).toBe(user.id);
    await failsWith("invalid_credentials", auth.signInWithPassword({ email: user.email!, password, context }));
    expect((await auth.signInWithPassword({ email: user.email!, password: "a brand new one", context })).user.id).toBe(
      user.id,
    );
    expect(await stores.oneTimeTokens.findByUser(user.id, "reauthentication")).toBeNull();
  });

  it("refuses the same password, and a weak one", async () => {
    const { auth, principal } = await signedIn();
    const same = await failsWith("same_password", auth.updateUser({ principal, password, context }));
    expect(same.message).toBe("New password should be different from the old password.");
    await failsWith("weak_password", auth.updateUser({ principal, password: "short", context }));
  });

  it("asks for the current password with SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD, but not in recovery", async () => {
    const { auth, principal, user } = await signedIn({ policy: { passwordChangeRequiresCurrentPassword: true } });
    const update = (fields: { currentPassword?: string }) =>
      auth.updateUser({ principal, password: "a brand new one", context, ...fields });
    const missing = await failsWith("current_password_required", update({}));
    expect(missing.message).toBe("Current password required when setting new password.");
    await failsWith("current_password_invalid", update({ currentPassword: "not it" }));
    await update({ currentPassword: password });
    expect((await auth.signInWithPassword({ email: user.email!, password: "a brand new one", context })).user.id).toBe(
      user.id,
    );
    // A session of the recovery flow (a recovery link, a magic link, a code) sets one without it.
    const recovering = {
      ...principal,
      session: { ...principal.session!, amr: [{ method: "recovery" as const, at: new Date() }] },
    };
    await auth.updateUser({ principal: recovering, password: "yet another one", context });
  });

  it("counts wrong current passwords against the account, as failed sign-ins", async () => {
    const options = {
      policy: {
        passwordChangeRequiresCurrentPassword: true,
        requestLimits: { passwordFailures: { events: 2, perSeconds: 900 } },
      },
    };
    const { auth, principal } = await signedIn(options);
    const wrong = () => auth.updateUser({ principal, password: "a brand new one", currentPassword: "guess", context });
    await failsWith("current_password_invalid", wrong());
    await failsWith("current_password_invalid", wrong());
    await failsWith("over_request_rate_limit", wrong());
  });

  it("records an email change as pending, and refuses an address another user holds", async () => {
    const { auth, principal, stores } = await signedIn();
    const other = aUser();
    await stores.users.insert(other);
    await failsWith("email_exists", auth.updateUser({ principal, email: other.email!.toUpperCase(), context }));
    const updated = await auth.updateUser({ principal, email: "Next@Example.com", context });
    expect(updated.newEmail).toBe("next@example.com");
    expect(updated.email).toBe(principal.user.email);
  });

  it("records a phone change as pending, or applies it at once with SMS_AUTOCONFIRM", async () => {
    const pending = await signedIn();
    expect(
      (await pending.auth.updateUser({ principal: pending.principal, phone: "+1 555 010 6000", context })).newPhone,
    ).toBe("+15550106000");

    const auto = await signedIn({ policy: { signup: { phoneAutoconfirm: true } } });
    // The phone comes after the email, as providers and identities list it.
    auto.clock.advance({ seconds: 1 });
    const updated = await auto.auth.updateUser({ principal: auto.principal, phone: "+15550107000", context });
    expect(updated).toMatchObject({ phone: "+15550107000", newPhone: null });
    expect(updated.phoneConfirmedAt).toBeInstanceOf(Date);
    expect(updated.appMetadata).toMatchObject({ provider: "email", providers: ["email", "phone"] });
    expect((await auto.stores.users.findById(auto.user.id))?.identities.map((identity) => identity.provider)).toEqual([
      "email",
      "phone",
    ]);
    expect((await auto.auth.signInWithPassword({ phone: "+15550107000", password, context })).user.id).toBe(
      auto.user.id,
    );
  });

  it("refuses a phone another user has confirmed", async () => {
    const { auth, principal, stores } = await signedIn();
    await stores.users.insert(aUser({ phone: "+15550108000", phoneConfirmedAt: new Date() }));
    await failsWith("phone_exists", auth.updateUser({ principal, phone: "+15550108000", context }));
  });

  describe("with SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", () => {
    const options = { policy: { passwordChangeRequiresReauthentication: true } };

    async function withNonce(nonce: string) {
      const testAuth = await signedIn(options);
      await testAuth.stores.oneTimeTokens.replace({
        id: crypto.randomUUID(),
        userId: testAuth.user.id,
        kind: "reauthentication",
        relatesTo: testAuth.user.email!,
        linkTokenHash: null,
        otpHash: otpDigest(createTestSecrets(), testAuth.user.email!, nonce),
        failedAttempts: 0,
        codeChallenge: null,
        codeChallengeMethod: null,
        passwordHash: null,
        userMetadata: null,
        identityId: null,
        createdAt: testAuth.clock.now(),
      });
      return testAuth;
    }

    it("needs a nonce for a password change", async () => {
      const { auth, principal } = await signedIn(options);
      await failsWith("reauthentication_needed", auth.updateUser({ principal, password: "a brand new one", context }));
      expect((await auth.updateUser({ principal, data: { fine: true }, context })).userMetadata).toMatchObject({
        fine: true,
      });
    });

    it("accepts the nonce that was sent, once", async () => {
      const { auth, principal } = await withNonce("123456");
      await failsWith(
        "reauthentication_not_valid",
        auth.updateUser({ principal, password: "a brand new one", nonce: "654321", context }),
      );
      await auth.updateUser({ principal, password: "a brand new one", nonce: "123456", context });
      await failsWith(
        "reauthentication_not_valid",
        auth.updateUser({ principal, password: "and another one", nonce: "123456", context }),
      );
    });

    it("spends no email change send on a request refused for its nonce", async () => {
      const { auth, principal, lastEmail } = await withNonce("123456");
      const refused = auth.updateUser({
        principal,
        email: "moved@example.com",
        password: "a brand new one",
        nonce: "000000",
        context,
      });
      await failsWith("reauthentication_not_valid", refused);
      await auth.updateUser({ principal, email: "moved@example.com", context });
      expect(await lastEmail("moved@example.com", "email_change")).toBeDefined();
    });

    it("compares no more than five nonces of a burst: 29 wrong ones sent together with the right one last", async () => {
      const { auth, principal, signIn } = await withNonce("123456");
      const burst = Array.from({ length: 30 }, (_, i) => {
        const from = { ip: `198.51.100.${i}`, userAgent: "burst" };
        return auth.updateUser({
          principal,
          password: "taken over",
          nonce: i === 29 ? "123456" : String(100000 + i),
          context: from,
        });
      });
      const outcomes = await Promise.allSettled(burst);
      expect(outcomes.every((outcome) => outcome.status === "rejected")).toBe(true);
      expect((await signIn()).user.id).toBe(principal.user.id);
    });

    it("refuses an expired nonce", async () => {
      const { auth, principal, clock } = await withNonce("123456");
      clock.advance({ seconds: 86_401 });
      await failsWith(
        "reauthentication_not_valid",
        auth.updateUser({ principal, password: "a brand new one", nonce: "123456", context }),
      );
    });
  });

  it("does not let an anonymous user set a password without an address", async () => {
    const { auth } = createTestAuth({ policy: { signup: { anonymousEnabled: true } } });
    const result = await auth.signUp({ context });
    if (result.kind !== "session") throw new Error("expected a session");
    const principal = await auth.authenticate({ accessToken: result.grant.accessToken });
    const refused = await failsWith(
      "validation_failed",
      auth.updateUser({ principal, password: "a brand new one", context }),
    );
    expect(refused.case).toBe("password_without_address");
  });
});
