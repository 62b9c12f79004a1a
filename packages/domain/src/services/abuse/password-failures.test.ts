import { describe, expect, it } from "vitest";
import type { AdminPrincipal } from "../../deps.ts";
import { createInMemoryRateLimiter } from "../../in-memory/rate-limiter.ts";
import type { RateLimiter } from "../../ports/rate-limiter.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { TestClock } from "../../testing/test-clock.ts";

const password = "s3cret-pass";
const admin: AdminPrincipal = { role: "service_role", userId: null, claims: {} };
/** Every attempt from another client: the per-client /token limit is not what these tests are about. */
const fromClient = (i: number) => ({ ip: `198.51.100.${i % 250}`, userAgent: "vitest" });
let clients = 0;
const anotherClient = () => fromClient(clients++);

/** A limiter that counts the calls made on it, to show what a sign-in costs. */
function countingLimiter(clock: TestClock) {
  const inner = createInMemoryRateLimiter(clock);
  const calls: string[] = [];
  const limiter: RateLimiter = {
    consume: (key, limit, windowSeconds) => {
      calls.push("consume");
      return inner.consume(key, limit, windowSeconds);
    },
    peek: (key, limit) => {
      calls.push("peek");
      return inner.peek(key, limit);
    },
    counted: (key) => {
      calls.push("counted");
      return inner.counted(key);
    },
    reset: (keys) => {
      calls.push("reset");
      return inner.reset(keys);
    },
    refund: (key) => {
      calls.push("refund");
      return inner.refund(key);
    },
  };
  return { limiter, calls };
}

async function withUser(events = 3) {
  const clock = new TestClock();
  const { limiter, calls } = countingLimiter(clock);
  const testAuth = createTestAuth({
    policy: { requestLimits: { passwordFailures: { events, perSeconds: 900 } } },
    ports: { clock, rateLimiter: limiter },
  });
  const user = aUser({
    passwordHash: await testAuth.hasher.hash(password),
    phone: "+15550107000",
    phoneConfirmedAt: new Date(),
  });
  await testAuth.stores.users.insert(user);
  const email = user.email!;
  const signIn = (as: { email: string } | { phone: string }, attempt = password) =>
    testAuth.auth.signInWithPassword({ ...as, password: attempt, context: anotherClient() });
  const fail = async (as: { email: string } | { phone: string }, times: number) => {
    for (let i = 0; i < times; i++) await failsWith("invalid_credentials", signIn(as, `guess-${i}`));
  };
  return { ...testAuth, clock, calls, user, email, signIn, fail };
}

describe("failed password sign-ins per account (RATE_LIMIT_PASSWORD_FAILURES)", () => {
  it("refuses the account's password grant past the limit, from any client, with the seconds left, without hashing", async () => {
    const { signIn, fail, email, hasher, clock } = await withUser();
    await fail({ email }, 2);
    clock.advance({ seconds: 100 });
    await fail({ email: email.toUpperCase() }, 1);

    const verifications = hasher.verifications;
    const refused = await failsWith("over_request_rate_limit", signIn({ email }));
    expect(refused.message).toBe("Request rate limit reached");
    expect(refused.retryAfterSeconds).toBe(800);
    await failsWith("over_request_rate_limit", signIn({ email }, "guess"));
    expect(hasher.verifications).toBe(verifications);
  });

  it("lets a burst of concurrent guesses have no more passwords checked than the limit", async () => {
    const { signIn, email, hasher } = await withUser(20);
    const verifications = hasher.verifications;
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        signIn({ email }, `guess-${i}`).then(
          () => "signed in",
          (error: { code?: string }) => error.code,
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === "invalid_credentials")).toHaveLength(20);
    expect(outcomes.filter((outcome) => outcome === "over_request_rate_limit")).toHaveLength(40);
    expect(hasher.verifications - verifications).toBe(20);
  });

  it("answers an address nobody has exactly as one that belongs to an account", async () => {
    const { signIn, fail, email } = await withUser();
    await fail({ email }, 3);
    await fail({ email: "nobody@example.com" }, 3);
    const known = await failsWith("over_request_rate_limit", signIn({ email }));
    const unknown = await failsWith("over_request_rate_limit", signIn({ email: "nobody@example.com" }));
    expect({ ...unknown, message: unknown.message }).toEqual({ ...known, message: known.message });
    // An address that cannot be valid names no account: it is not counted, and fails as before.
    await fail({ email: "not an address" }, 5);
  });

  it("counts each address apart, phones in E.164 whatever their spelling", async () => {
    const { signIn, fail, email, user } = await withUser();
    await fail({ phone: "1 555 010 7000" }, 2);
    await fail({ phone: "+15550107000" }, 1);
    await failsWith("over_request_rate_limit", signIn({ phone: "15550107000" }));
    expect((await signIn({ email })).user.id).toBe(user.id);
  });

  it("is time-boxed: the window starts with the first failure, and the password works again when it ends", async () => {
    const { signIn, fail, email, user, clock } = await withUser();
    await fail({ email }, 3);
    clock.advance({ seconds: 600 });
    // Refusals are not failures: they do not extend the window.
    for (let i = 0; i < 5; i++) await failsWith("over_request_rate_limit", signIn({ email }, "guess"));
    clock.advance({ seconds: 299 });
    expect((await failsWith("over_request_rate_limit", signIn({ email }))).retryAfterSeconds).toBe(1);
    clock.advance({ seconds: 1 });
    expect((await signIn({ email })).user.id).toBe(user.id);
  });

  it("still lets the account in by a link or a code while its password grant is refused", async () => {
    const { auth, signIn, fail, email, user, lastEmail } = await withUser();
    await fail({ email }, 3);
    await auth.sendMagicLink({ email, createUser: false, context });
    const mail = (await lastEmail(email, "magic_link"))!;
    const result = await auth.verify({
      type: "magiclink",
      proof: { linkToken: mail.linkToken },
      followedLink: true,
      context,
    });
    expect(result.kind === "session" && result.grant.user.id).toBe(user.id);
    // A sign-in by link is not a password: the lock stays.
    await failsWith("over_request_rate_limit", signIn({ email }));
  });

  it("forgets the failures after a successful sign-in, the attempt's own count with them", async () => {
    const { signIn, fail, email, user, calls } = await withUser();
    calls.length = 0;
    await signIn({ email });
    // The per-client /token limit, the attempt counted for the account, then forgotten with any failures.
    expect(calls).toEqual(["consume", "consume", "reset"]);

    await fail({ email }, 2);
    calls.length = 0;
    expect((await signIn({ email })).user.id).toBe(user.id);
    expect(calls).toEqual(["consume", "consume", "reset"]);
    await fail({ email }, 2);
    expect((await signIn({ email })).user.id).toBe(user.id);
    await fail({ email }, 3);
    await failsWith("over_request_rate_limit", signIn({ email }));
  });

  it("does not count, nor forget, for a right password that is refused (unconfirmed, banned)", async () => {
    const { signIn, fail, email, stores, user } = await withUser();
    await fail({ email }, 2);
    await stores.users.update({ ...user, bannedUntil: new Date("2099-01-01T00:00:00Z") });
    for (let i = 0; i < 3; i++) await failsWith("user_banned", signIn({ email }));
    await fail({ email }, 1);
    await failsWith("over_request_rate_limit", signIn({ email }));
  });

  it("is lifted by a password reset: the recovery link, then a new password", async () => {
    const { auth, signIn, fail, email, user, lastEmail } = await withUser();
    await fail({ email }, 3);
    await fail({ phone: "+15550107000" }, 3);
    await auth.recoverPassword({ email, context });
    const mail = (await lastEmail(email, "recovery"))!;
    const result = await auth.verify({
      type: "recovery",
      proof: { linkToken: mail.linkToken },
      followedLink: true,
      context,
    });
    if (result.kind !== "session") throw new Error("expected a session");
    // Signed in by the link, but the password grant is still refused until the password changes.
    await failsWith("over_request_rate_limit", signIn({ email }));
    const principal = await auth.authenticate({ accessToken: result.grant.accessToken });
    await auth.updateUser({ principal, password: "the new password", context });
    expect((await signIn({ email }, "the new password")).user.id).toBe(user.id);
    expect((await signIn({ phone: "+15550107000" }, "the new password")).user.id).toBe(user.id);
  });

  it("is lifted by a password change, the user's or an admin's", async () => {
    const { auth, signIn, fail, email, user } = await withUser();
    const grant = await signIn({ email });
    await fail({ email }, 3);
    const principal = await auth.authenticate({ accessToken: grant.accessToken });
    await auth.updateUser({ principal, password: "a brand new one", context });
    expect((await signIn({ email }, "a brand new one")).user.id).toBe(user.id);

    await fail({ email }, 3);
    await auth.admin.updateUser({ admin, userId: user.id, password: "set by an admin", context });
    expect((await signIn({ email }, "set by an admin")).user.id).toBe(user.id);
  });

  it("is not lifted by other changes to the account", async () => {
    const { auth, signIn, fail, email, user } = await withUser();
    await fail({ email }, 3);
    await auth.admin.updateUser({ admin, userId: user.id, userMetadata: { a: 1 }, context });
    await failsWith("over_request_rate_limit", signIn({ email }));
  });
});
