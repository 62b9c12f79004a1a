import { describe, expect, it } from "vitest";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { OUTDATED_PREFIX } from "../../testing/fast-password-hasher.ts";

const password = "s3cret-pass";

async function withUser(
  overrides: Parameters<typeof aUser>[0] = {},
  policy: Parameters<typeof createTestAuth>[0] = {},
) {
  const testAuth = createTestAuth(policy);
  const user = aUser({ passwordHash: await testAuth.hasher.hash(password), ...overrides });
  await testAuth.stores.users.insert(user);
  return { ...testAuth, user };
}

describe("sign in with password", () => {
  it("opens a session for the right password, by email in any case or by phone", async () => {
    const { auth, user, stores, clock } = await withUser({ phone: "+15550104000", phoneConfirmedAt: new Date() });
    const byEmail = await auth.signInWithPassword({ email: user.email!.toUpperCase(), password, context });
    expect(byEmail.user.id).toBe(user.id);
    expect(byEmail.tokenType).toBe("bearer");
    expect(byEmail.expiresAt).toBe(Math.floor(clock.now().getTime() / 1000) + 3600);
    expect(byEmail.session).toMatchObject({ userId: user.id, ip: "203.0.113.7", userAgent: "vitest", aal: "aal1" });
    expect((await stores.users.findById(user.id))?.lastSignInAt).toEqual(clock.now());

    const byPhone = await auth.signInWithPassword({ phone: "1 555 010 4000", password, context });
    expect(byPhone.session.id).not.toBe(byEmail.session.id);
  });

  it("fails alike, after the same hashing work, for an unknown address, a missing password and a wrong one", async () => {
    const { auth, user, hasher, stores } = await withUser();
    const passwordless = aUser({ passwordHash: null });
    await stores.users.insert(passwordless);
    for (const attempt of [
      { email: "nobody@example.com", password },
      { email: "not an address", password },
      { email: passwordless.email!, password },
      { email: user.email!, password: "wrong-password" },
      { email: user.email!, password: "s3cret-pass\ud800" },
    ]) {
      const before = hasher.verifications;
      const error = await failsWith("invalid_credentials", auth.signInWithPassword({ ...attempt, context }));
      expect(error.message).toBe("Invalid login credentials");
      expect(hasher.verifications - before).toBe(1);
    }
  });

  it("tells a banned user so only after the right password", async () => {
    const { auth, user, clock } = await withUser({ bannedUntil: new Date("2027-01-01T00:00:00Z") });
    await failsWith(
      "invalid_credentials",
      auth.signInWithPassword({ email: user.email!, password: "wrong-password", context }),
    );
    await failsWith("user_banned", auth.signInWithPassword({ email: user.email!, password, context }));
    clock.advance({ hours: 24 * 400 });
    expect((await auth.signInWithPassword({ email: user.email!, password, context })).user.id).toBe(user.id);
  });

  it("refuses an unconfirmed address once the password is right", async () => {
    const { auth, user } = await withUser({ emailConfirmedAt: null, phone: "+15550105000" });
    await failsWith("email_not_confirmed", auth.signInWithPassword({ email: user.email!, password, context }));
    await failsWith("phone_not_confirmed", auth.signInWithPassword({ phone: "+15550105000", password, context }));
  });

  it("checks the request and the enabled providers", async () => {
    const { auth } = await withUser();
    await failsWith("validation_failed", auth.signInWithPassword({ password, context }));
    await failsWith(
      "validation_failed",
      auth.signInWithPassword({ email: "a@b.co", phone: "+15550001", password, context }),
    );
    const { auth: emailOff } = await withUser({}, { policy: { signup: { emailEnabled: false } } });
    await failsWith("email_provider_disabled", emailOff.signInWithPassword({ email: "a@b.co", password, context }));
  });

  it("never undoes a password change that lands while the old password is being verified", async () => {
    const testAuth = createTestAuth();
    const hasher = testAuth.hasher;
    let releaseVerification!: () => void;
    const verificationHeld = new Promise<void>((resolve) => (releaseVerification = resolve));
    let signalVerifying!: () => void;
    const verifying = new Promise<void>((resolve) => (signalVerifying = resolve));
    const slowHasher = Object.assign(Object.create(hasher), {
      verify: async (stored: string, candidate: string) => {
        signalVerifying();
        await verificationHeld;
        return hasher.verify(stored, candidate);
      },
    });
    const { auth, stores } = createTestAuth({
      ports: { stores: testAuth.stores, tx: testAuth.ports.tx, hasher: slowHasher },
    });
    const user = aUser({ passwordHash: await hasher.hash(password) });
    await stores.users.insert(user);

    const signIn = auth.signInWithPassword({ email: user.email!, password, context });
    await verifying;
    await stores.users.update({ ...user, passwordHash: await hasher.hash("changed meanwhile") });
    releaseVerification();
    await failsWith("invalid_credentials", signIn);
    expect((await stores.users.findById(user.id))?.passwordHash).toBe(await hasher.hash("changed meanwhile"));
  });

  it("replaces an outdated hash with a fresh one after a successful sign-in", async () => {
    const { auth, user, stores } = await withUser();
    const { createHash } = await import("node:crypto");
    const outdated = OUTDATED_PREFIX + createHash("sha256").update(password).digest("hex");
    await stores.users.update({ ...user, passwordHash: outdated });
    await auth.signInWithPassword({ email: user.email!, password, context });
    const saved = await stores.users.findById(user.id);
    expect(saved?.passwordHash).not.toBe(outdated);
    expect(saved?.passwordHash?.startsWith("fast-sha256$")).toBe(true);
  });

  it("signs in with a password the policy has since outgrown, and says so", async () => {
    const { auth, user } = await withUser({}, { policy: { password: { minLength: 20 } } });
    const grant = await auth.signInWithPassword({ email: user.email!, password, context });
    expect(grant.weakPassword).toEqual({ message: "Password should be at least 20 characters.", reasons: ["length"] });
  });
});
