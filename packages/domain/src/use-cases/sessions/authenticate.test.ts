import { describe, expect, it } from "vitest";
import { ISSUED_AT_LEEWAY_SECONDS } from "../../model/access-token-claims.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";

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
    expect((await auth.authenticate({ accessToken: grant.accessToken, audience: "authenticated" })).user.id).toBe(
      grant.user.id,
    );
  });

  it("refuses forged and expired tokens as bad_jwt", async () => {
    const { auth, grant, clock } = await signedIn();
    const [header, payload] = grant.accessToken.split(".");
    await failsWith("bad_jwt", auth.authenticate({ accessToken: `${header}.${payload}.forged` }));
    await failsWith("bad_jwt", auth.authenticate({ accessToken: "garbage" }));
    clock.advance({ seconds: 3601 });
    await failsWith("bad_jwt", auth.authenticate({ accessToken: grant.accessToken }));
  });

  it("refuses a token issued in the future, beyond a small leeway for clocks that differ, and so does the admin API", async () => {
    const { auth, grant, ports, clock } = await signedIn();
    const claims = (await auth.authenticate({ accessToken: grant.accessToken })).claims;
    const now = Math.floor(clock.now().getTime() / 1000);
    const issuedAt = async (iat: number) => ports.signer.sign({ ...claims, iat, exp: iat + 3600 });
    const refused = await failsWith(
      "bad_jwt",
      auth.authenticate({ accessToken: await issuedAt(now + ISSUED_AT_LEEWAY_SECONDS + 1) }),
    );
    expect(refused.message).toBe("invalid JWT: token used before issued");
    expect((await auth.authenticate({ accessToken: await issuedAt(now + ISSUED_AT_LEEWAY_SECONDS) })).user.id).toBe(
      grant.user.id,
    );
    const serviceKey = (iat: number) =>
      ports.signer.sign({ role: "service_role", iss: "supabase", iat, exp: iat + 1e9 });
    await failsWith("bad_jwt", auth.authorizeAdmin({ accessToken: await serviceKey(now + 86_400) }));
    expect((await auth.authorizeAdmin({ accessToken: await serviceKey(now - 86_400) })).role).toBe("service_role");
  });

  it("refuses a token for a user without exp, but takes an API key without one, as GoTrue does", async () => {
    const { auth, grant, ports } = await signedIn();
    const { exp: _exp, ...unexpiring } = (await auth.authenticate({ accessToken: grant.accessToken })).claims;
    const refused = await failsWith("bad_jwt", auth.authenticate({ accessToken: await ports.signer.sign(unexpiring) }));
    expect(refused.message).toBe("invalid JWT: a token for a user must have an exp claim");
    const serviceKey = await ports.signer.sign({ role: "service_role", iss: "supabase" });
    expect(await auth.authorizeAdmin({ accessToken: serviceKey })).toMatchObject({
      role: "service_role",
      userId: null,
    });
  });

  it("takes an admin key with a sub and no exp on the admin API only, as GoTrue does", async () => {
    const { auth, grant, ports } = await signedIn();
    // Supabase's own supabase_admin key in its client's tests: a sub that is no user, no exp.
    const supabaseAdmin = await ports.signer.sign({ sub: "1234567890", role: "supabase_admin", iat: 1_700_000_000 });
    expect(await auth.authorizeAdmin({ accessToken: supabaseAdmin })).toMatchObject({
      role: "supabase_admin",
      userId: null,
    });
    const naming = await ports.signer.sign({ role: "service_role", sub: grant.user.id });
    expect(await auth.authorizeAdmin({ accessToken: naming })).toMatchObject({ userId: grant.user.id });
    // Where the token stands for a user's session, it still must expire.
    const refused = await failsWith("bad_jwt", auth.authenticate({ accessToken: naming }));
    expect(refused.message).toBe("invalid JWT: a token for a user must have an exp claim");
    await failsWith("bad_jwt", auth.authenticate({ accessToken: supabaseAdmin }));
    const { exp: _exp, ...session } = (await auth.authenticate({ accessToken: grant.accessToken })).claims;
    const sessionAdmin = await ports.signer.sign({ ...session, role: "service_role" });
    await failsWith("bad_jwt", auth.authorizeAdmin({ accessToken: sessionAdmin }));
  });

  it("stops accepting a token once its session has ended, or its user is banned", async () => {
    const { auth, grant, stores, user } = await signedIn();
    await stores.users.update({ ...user, bannedUntil: new Date("2099-01-01T00:00:00Z") });
    await failsWith("user_banned", auth.authenticate({ accessToken: grant.accessToken }));
    await stores.users.update({ ...user, bannedUntil: null });

    await stores.sessions.deleteAllOfUser(user.id);
    const gone = await failsWith("session_not_found", auth.authenticate({ accessToken: grant.accessToken }));
    expect(gone.case).toBe("token_holder_gone");
  });
});
