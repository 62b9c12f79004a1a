import { describe, expect, it } from "vitest";
import { aUser } from "../testing/builders.ts";
import { createTestAuth } from "../testing/create-test-auth.ts";
import { context, failsWith } from "../testing/fails-with.ts";

describe("authenticate a bearer token", () => {
  async function signedIn() {
    const testAuth = createTestAuth();
    const user = aUser({ passwordHash: await testAuth.hasher.hash("s3cret-pass") });
    await testAuth.stores.users.insert(user);
    const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password: "s3cret-pass", context });
    return { ...testAuth, user, grant };
  }

  it("resolves to the user and the session the token names", async () => {
    const { auth, grant, user } = await signedIn();
    const principal = await auth.authenticate({ accessToken: grant.accessToken });
    expect(principal.user).toEqual(grant.user);
    expect(principal.session?.id).toBe(grant.session.id);
    expect(principal.claims["sub"]).toBe(user.id);
  });

  it("refuses a token for another audience than the one the request names", async () => {
    const { auth, grant } = await signedIn();
    await failsWith("validation_failed", auth.authenticate({ accessToken: grant.accessToken, audience: "other-app" }));
    expect((await auth.authenticate({ accessToken: grant.accessToken, audience: "authenticated" })).user.id).toBe(grant.user.id);
  });

  it("refuses forged and expired tokens as bad_jwt", async () => {
    const { auth, grant, clock } = await signedIn();
    const [header, payload] = grant.accessToken.split(".");
    await failsWith("bad_jwt", auth.authenticate({ accessToken: `${header}.${payload}.forged` }));
    await failsWith("bad_jwt", auth.authenticate({ accessToken: "garbage" }));
    clock.advance({ seconds: 3601 });
    await failsWith("bad_jwt", auth.authenticate({ accessToken: grant.accessToken }));
  });

  it("stops accepting a token once its session has ended, or its user is banned", async () => {
    const { auth, grant, stores, user } = await signedIn();
    await stores.users.update({ ...user, bannedUntil: new Date("2099-01-01T00:00:00Z") });
    await failsWith("user_banned", auth.authenticate({ accessToken: grant.accessToken }));
    await stores.users.update({ ...user, bannedUntil: null });

    await stores.sessions.deleteAllOfUser(user.id);
    await failsWith("session_not_found", auth.authenticate({ accessToken: grant.accessToken }));
  });
});
