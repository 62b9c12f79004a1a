import { describe, expect, it } from "vitest";
import type { AdminPrincipal } from "../deps.ts";
import { aUser } from "../testing/builders.ts";
import { createTestAuth } from "../testing/create-test-auth.ts";
import { context, failsWith } from "../testing/fails-with.ts";
import { FakePwnedPasswords } from "../testing/fake-pwned-passwords.ts";
import { principalOf, signedIn, TEST_PASSWORD } from "../testing/signed-in.ts";

// PASSWORD_HIBP_*: wherever a password is set, one known from breaches is weak, in the same weak_password answer
// as the length and character rules; a service that cannot be asked fails open, or closed when told to.

const admin: AdminPrincipal = { role: "service_role", userId: null, claims: {} };
const LEAKED = "password123";
const PWNED_SENTENCE = "Password is known to be weak and easy to guess, please choose a different one.";

function withService(failClosed = false) {
  const pwnedPasswords = new FakePwnedPasswords([LEAKED, "abc"]);
  const testAuth = createTestAuth({ ports: { pwnedPasswords }, policy: { password: { pwnedFailClosed: failClosed } } });
  return { ...testAuth, pwnedPasswords };
}

describe("leaked-password protection", () => {
  it("refuses a leaked password at signup, with the other reasons, and asks nothing when off", async () => {
    const { auth, stores, pwnedPasswords } = withService();
    const leaked = await failsWith("weak_password", auth.signUp({ email: "a@b.co", password: LEAKED, context }));
    expect(leaked.message).toBe(PWNED_SENTENCE);
    expect(leaked.details).toEqual({ reasons: ["pwned"] });
    const all = await failsWith("weak_password", auth.signUp({ email: "a@b.co", password: "abc", context }));
    expect(all.details).toEqual({ reasons: ["length", "pwned"] });
    expect(all.message).toBe(`Password should be at least 6 characters. ${PWNED_SENTENCE}`);
    expect(await stores.users.findByEmail("a@b.co")).toBeNull();
    expect((await auth.signUp({ email: "a@b.co", password: "a clean one", context })).kind).toBe("user");
    expect(pwnedPasswords.asked).toEqual([LEAKED, "abc", "a clean one"]);

    const off = createTestAuth();
    expect((await off.auth.signUp({ email: "a@b.co", password: LEAKED, context })).kind).toBe("user");
  });

  it("refuses one for a user's own change, an admin's create and update, a signup link, a verification", async () => {
    const pwnedPasswords = new FakePwnedPasswords([LEAKED]);
    const testAuth = await signedIn({ ports: { pwnedPasswords } });
    const { auth, user } = testAuth;
    const principal = await principalOf(testAuth, testAuth.grant);
    const refusals = [
      auth.updateUser({ principal, password: LEAKED, context }),
      auth.admin.createUser({ admin, email: "new@example.com", password: LEAKED, context }),
      auth.admin.updateUser({ admin, userId: user.id, password: LEAKED, context }),
      auth.admin.generateLink({ admin, type: "signup", email: "link@example.com", password: LEAKED, context }),
    ];
    for (const refusal of refusals) {
      expect((await failsWith("weak_password", refusal)).details).toEqual({ reasons: ["pwned"] });
    }
    await auth.sendMagicLink({ email: "nopass@example.com", createUser: true, context });
    const mail = (await testAuth.lastEmail("nopass@example.com", "confirmation"))!;
    const proof = { email: "nopass@example.com", code: mail.otp };
    const verified = auth.verify({ type: "signup", proof, followedLink: false, password: LEAKED, context });
    expect((await failsWith("weak_password", verified)).details).toEqual({ reasons: ["pwned"] });
    expect(await auth.signInWithPassword({ email: user.email!, password: TEST_PASSWORD, context })).toBeTruthy();
  });

  it("tells a sign-in with a leaked password of it, and never fails a sign-in for the service", async () => {
    const pwnedPasswords = new FakePwnedPasswords([LEAKED]);
    const testAuth = createTestAuth({ ports: { pwnedPasswords }, policy: { password: { pwnedFailClosed: true } } });
    // Set before the service was asked about passwords.
    await testAuth.stores.users.insert(
      aUser({ email: "old@example.com", passwordHash: await testAuth.hasher.hash(LEAKED) }),
    );
    const grant = await testAuth.auth.signInWithPassword({ email: "old@example.com", password: LEAKED, context });
    expect(grant.weakPassword).toEqual({ message: PWNED_SENTENCE, reasons: ["pwned"] });
    pwnedPasswords.down = true;
    const unchecked = await testAuth.auth.signInWithPassword({ email: "old@example.com", password: LEAKED, context });
    expect(unchecked.weakPassword).toBeUndefined();
    expect(testAuth.events.of("pwned_check_failed")).toEqual([
      { kind: "pwned_check_failed", refused: false, reason: "connect ECONNREFUSED 127.0.0.1:9" },
    ]);
  });

  it("lets a password pass unchecked when the service cannot be asked, recording it", async () => {
    const { auth, events, pwnedPasswords } = withService();
    pwnedPasswords.down = true;
    expect((await auth.signUp({ email: "a@b.co", password: LEAKED, context })).kind).toBe("user");
    // The length rule still applies, without the service's word.
    const short = await failsWith("weak_password", auth.signUp({ email: "c@d.co", password: "abc", context }));
    expect(short.details).toEqual({ reasons: ["length"] });
    expect(events.of("pwned_check_failed")).toEqual([
      { kind: "pwned_check_failed", refused: false, reason: "connect ECONNREFUSED 127.0.0.1:9" },
      { kind: "pwned_check_failed", refused: false, reason: "connect ECONNREFUSED 127.0.0.1:9" },
    ]);
  });

  it("refuses the request as service_unavailable when told to fail closed", async () => {
    const { auth, events, stores, pwnedPasswords } = withService(true);
    pwnedPasswords.down = true;
    const refused = await failsWith(
      "service_unavailable",
      auth.signUp({ email: "a@b.co", password: "clean!", context }),
    );
    expect(refused.message).toBe("Unable to perform password strength check with HaveIBeenPwned.org.");
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect((refused.cause as Error).message).toBe("connect ECONNREFUSED 127.0.0.1:9");
    expect(events.of("pwned_check_failed")).toEqual([
      { kind: "pwned_check_failed", refused: true, reason: "connect ECONNREFUSED 127.0.0.1:9" },
    ]);
    expect(await stores.users.findByEmail("a@b.co")).toBeNull();
  });
});
