import { describe, expect, it } from "vitest";
import type { AdminPrincipal } from "../deps.ts";
import { aUser } from "../testing/builders.ts";
import { createTestAuth } from "../testing/create-test-auth.ts";
import { context, failsWith } from "../testing/fails-with.ts";

const admin: AdminPrincipal = { role: "service_role", userId: null, claims: {} };
const password = "s3cret-pass";

describe("anonymous sign-ins per client IP (RATE_LIMIT_ANONYMOUS_USERS)", () => {
  const options = {
    policy: {
      signup: { anonymousEnabled: true },
      requestLimits: { anonymousSignIns: { events: 2, perSeconds: 3600 } },
    },
  };
  const fromIp = (ip: string | null) => ({ ip, userAgent: "vitest" });

  it("refuses the one past the limit from one IP with GoTrue's 429 and the seconds to wait, creating nobody", async () => {
    const { auth } = createTestAuth(options);
    for (let i = 0; i < 2; i++) expect((await auth.signUp({ context })).kind).toBe("session");
    const refused = await failsWith("over_request_rate_limit", auth.signUp({ context }));
    expect(refused.message).toBe("Request rate limit reached");
    expect(refused.retryAfterSeconds).toBe(3600);
    expect((await auth.admin.listUsers({})).total).toBe(2);
  });

  it("counts each IP apart, lets the window pass, and does not count a caller whose IP is unknown", async () => {
    const { auth, clock } = createTestAuth(options);
    await auth.signUp({ context });
    await auth.signUp({ context });
    await failsWith("over_request_rate_limit", auth.signUp({ context }));
    expect((await auth.signUp({ context: fromIp("198.51.100.9") })).kind).toBe("session");
    for (let i = 0; i < 5; i++) expect((await auth.signUp({ context: fromIp(null) })).kind).toBe("session");
    clock.advance({ seconds: 1800 });
    const later = await failsWith("over_request_rate_limit", auth.signUp({ context }));
    expect(later.retryAfterSeconds).toBe(1800);
    clock.advance({ seconds: 1800 });
    expect((await auth.signUp({ context })).kind).toBe("session");
  });

  it("limits only anonymous sign-ins: an email signup from the same IP goes through", async () => {
    const { auth } = createTestAuth(options);
    await auth.signUp({ context });
    await auth.signUp({ context });
    await failsWith("over_request_rate_limit", auth.signUp({ context }));
    expect((await auth.signUp({ email: "real@example.com", password, context })).kind).toBe("user");
  });

  it("refuses with anonymous_provider_disabled before counting anything", async () => {
    const { auth } = createTestAuth({
      policy: { requestLimits: { anonymousSignIns: { events: 0, perSeconds: 3600 } } },
    });
    await failsWith("anonymous_provider_disabled", auth.signUp({ context }));
  });
});

describe("a ban and the access tokens issued before it", () => {
  async function signedIn() {
    const testAuth = createTestAuth();
    const user = aUser({ passwordHash: await testAuth.hasher.hash(password) });
    await testAuth.stores.users.insert(user);
    const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
    return { ...testAuth, user, grant };
  }

  it("answers user_banned, not session_expired, although the ban ended the session", async () => {
    const { auth, user, grant, stores, clock } = await signedIn();
    await auth.admin.updateUser({ admin, userId: user.id, banDuration: "24h", context });
    const found = await stores.users.findWithSession(user.id, grant.session.id);
    expect(found?.session?.notAfter).toEqual(clock.now());
    await failsWith("user_banned", auth.authenticate({ accessToken: grant.accessToken }));
  });

  it("answers session_expired once the ban is lifted or has run out: the session stays ended", async () => {
    const lifted = await signedIn();
    await lifted.auth.admin.updateUser({ admin, userId: lifted.user.id, banDuration: "24h", context });
    await lifted.auth.admin.updateUser({ admin, userId: lifted.user.id, banDuration: "none", context });
    await failsWith("session_expired", lifted.auth.authenticate({ accessToken: lifted.grant.accessToken }));

    const expired = await signedIn();
    await expired.auth.admin.updateUser({ admin, userId: expired.user.id, banDuration: "10m", context });
    expired.clock.advance({ minutes: 10 });
    const byToken = await failsWith(
      "session_expired",
      expired.auth.authenticate({ accessToken: expired.grant.accessToken }),
    );
    const byRefresh = await failsWith(
      "session_expired",
      expired.auth.refreshSession({ refreshToken: expired.grant.refreshToken, context }),
    );
    // The same code, told apart: the first is a bearer token refused, the second a refresh refused.
    expect([byToken.case, byRefresh.case]).toEqual(["token_holder_gone", undefined]);
  });

  it("answers user_banned for a token without a session (a service key naming the user)", async () => {
    const { auth, user, ports, clock } = await signedIn();
    const exp = Math.floor(clock.now().getTime() / 1000) + 3600;
    const sessionless = await ports.signer.sign({ sub: user.id, role: "authenticated", exp });
    expect((await auth.authenticate({ accessToken: sessionless })).session).toBeNull();
    await auth.admin.updateUser({ admin, userId: user.id, banDuration: "1h", context });
    await failsWith("user_banned", auth.authenticate({ accessToken: sessionless }));
  });
});
