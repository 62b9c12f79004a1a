import { describe, expect, it } from "vitest";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";

const password = "s3cret-pass";
const limits = {
  token: { events: 3, perSeconds: 300 },
  verify: { events: 2, perSeconds: 300 },
  otp: { events: 2, perSeconds: 300 },
};
const fromIp = (ip: string | null) => ({ ip, userAgent: "vitest" });

async function withUser() {
  const testAuth = createTestAuth({ policy: { requestLimits: limits, email: { magicLinkEnabled: true } } });
  const user = aUser({ passwordHash: await testAuth.hasher.hash(password) });
  await testAuth.stores.users.insert(user);
  return { ...testAuth, user, email: user.email! };
}

describe("per-address limits on /token (RATE_LIMIT_TOKEN_REFRESH)", () => {
  it("counts every grant together and refuses past the limit with GoTrue's 429, before the password is checked", async () => {
    const { auth, hasher, email } = await withUser();
    const grant = await auth.signInWithPassword({ email, password, context });
    await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    await failsWith(
      "flow_state_not_found",
      auth.exchangeAuthCode({ authCode: "unknown", codeVerifier: "x".repeat(43), context }),
    );

    const verifications = hasher.verifications;
    const refused = await failsWith("over_request_rate_limit", auth.signInWithPassword({ email, password, context }));
    expect(refused.message).toBe("Request rate limit reached");
    expect(refused.retryAfterSeconds).toBe(300);
    expect(hasher.verifications).toBe(verifications);
    await failsWith("over_request_rate_limit", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
  });

  it("counts failed attempts, so one address cannot keep guessing passwords", async () => {
    const { auth, email } = await withUser();
    for (let i = 0; i < 3; i++)
      await failsWith("invalid_credentials", auth.signInWithPassword({ email, password: `guess-${i}`, context }));
    await failsWith("over_request_rate_limit", auth.signInWithPassword({ email, password, context }));
  });

  it("counts each address apart, opens again when the window ends, and does not count a caller whose address is unknown", async () => {
    const { auth, clock, email } = await withUser();
    for (let i = 0; i < 3; i++) await auth.signInWithPassword({ email, password, context });
    await failsWith("over_request_rate_limit", auth.signInWithPassword({ email, password, context }));
    expect((await auth.signInWithPassword({ email, password, context: fromIp("198.51.100.9") })).user.email).toBe(
      email,
    );
    for (let i = 0; i < 5; i++) await auth.signInWithPassword({ email, password, context: fromIp(null) });
    clock.advance({ seconds: 300 });
    expect((await auth.signInWithPassword({ email, password, context })).user.email).toBe(email);
  });
});

describe("per-address limits on /verify (RATE_LIMIT_VERIFY)", () => {
  it("refuses past the limit whatever is presented, without looking the code up, and apart from /token", async () => {
    const { auth, email } = await withUser();
    for (let i = 0; i < 2; i++) {
      await failsWith(
        "otp_expired",
        auth.verify({ type: "email", proof: { email, code: "000000" }, followedLink: false, context }),
      );
    }
    await failsWith(
      "over_request_rate_limit",
      auth.verify({ type: "email", proof: { email, code: "000000" }, followedLink: false, context }),
    );
    await failsWith(
      "over_request_rate_limit",
      auth.verify({ type: "magiclink", proof: { linkToken: "abc" }, followedLink: true, context }),
    );
    expect((await auth.signInWithPassword({ email, password, context })).user.email).toBe(email);
  });
});

describe("per-address limits on the routes that send (RATE_LIMIT_OTP)", () => {
  it("counts /otp by email and by phone together, and refuses before anything is sent", async () => {
    const testAuth = await withUser();
    const { auth, email } = testAuth;
    await auth.sendMagicLink({ email, createUser: false, context });
    await auth.sendSmsOtp({ phone: "+15550100999", createUser: true, context });
    await failsWith(
      "over_request_rate_limit",
      auth.sendMagicLink({ email: "other@example.com", createUser: true, context }),
    );
    expect((await testAuth.emails()).map((mail) => mail.to)).toEqual([email]);
  });

  it("keeps a bucket per route: /otp spent leaves /recover, /resend, /signup and PUT /user their own", async () => {
    const { auth, email, stores } = await withUser();
    for (let i = 0; i < 2; i++) await auth.sendMagicLink({ email: `otp-${i}@example.com`, createUser: true, context });
    await failsWith("over_request_rate_limit", auth.sendMagicLink({ email, createUser: false, context }));

    await auth.recoverPassword({ email: "nobody-1@example.com", context });
    await auth.recoverPassword({ email: "nobody-2@example.com", context });
    await failsWith("over_request_rate_limit", auth.recoverPassword({ email, context }));

    await auth.resend({ type: "signup", email: "nobody-1@example.com", context });
    await auth.resend({ type: "signup", email: "nobody-2@example.com", context });
    await failsWith("over_request_rate_limit", auth.resend({ type: "signup", email, context }));

    await auth.signUp({ email: "new-1@example.com", password, context });
    await auth.signUp({ email: "new-2@example.com", password, context });
    await failsWith("over_request_rate_limit", auth.signUp({ email: "new-3@example.com", password, context }));
    expect(await stores.users.findByEmail("new-3@example.com")).toBeNull();

    const grant = await auth.signInWithPassword({ email, password, context });
    const principal = await auth.authenticate({ accessToken: grant.accessToken });
    await auth.updateUser({ principal, data: { n: 1 }, context });
    await auth.updateUser({ principal, data: { n: 2 }, context });
    await failsWith("over_request_rate_limit", auth.updateUser({ principal, data: { n: 3 }, context }));
    expect((await stores.users.findById(principal.user.id))?.userMetadata).toEqual({ n: 2 });
  });
});
