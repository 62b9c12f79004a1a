import { describe, expect, it } from "vitest";
import type { AdminPrincipal } from "../../deps.ts";
import { NO_USER_ID } from "../../services/audit.ts";
import { aUser } from "../../testing/builders.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { signedIn, TEST_PASSWORD } from "../../testing/signed-in.ts";

const serviceKey: AdminPrincipal = { role: "service_role", userId: null, claims: {} };
const UNKNOWN_USER = "00000000-0000-4000-8000-000000000099";

/** A user signed in twice, a minute apart, and another user signed in once. */
async function signedInTwice() {
  const testAuth = await signedIn();
  const { auth, clock, stores, user, grant: first } = testAuth;
  clock.advance({ minutes: 1 });
  const second = await auth.signInWithPassword({ email: user.email!, password: TEST_PASSWORD, context });
  const other = aUser({ passwordHash: await testAuth.hasher.hash(TEST_PASSWORD) });
  await stores.users.insert(other);
  const othersGrant = await auth.signInWithPassword({ email: other.email!, password: TEST_PASSWORD, context });
  return { ...testAuth, first, second, other, othersGrant };
}

describe("admin: a user's sessions", () => {
  it("lists every session of the user, newest first, and none of another user's", async () => {
    const { auth, user, first, second } = await signedInTwice();
    const firstSession = (await auth.authenticate({ accessToken: first.accessToken })).session!;
    const secondSession = (await auth.authenticate({ accessToken: second.accessToken })).session!;

    const sessions = await auth.admin.listSessions({ userId: user.id });
    expect(sessions.map((session) => session.id)).toEqual([secondSession.id, firstSession.id]);
    expect(sessions.every((session) => session.userId === user.id)).toBe(true);
    expect(sessions[0]).toMatchObject({ aal: "aal1", factorId: null, notAfter: null, ip: context.ip });
  });

  it("lists none for a user who never signed in, and refuses a user that does not exist", async () => {
    const { auth, stores } = await signedIn();
    const never = aUser();
    await stores.users.insert(never);
    expect(await auth.admin.listSessions({ userId: never.id })).toEqual([]);
    await failsWith("user_not_found", auth.admin.listSessions({ userId: UNKNOWN_USER }));
  });
});

describe("admin: sign a user out everywhere", () => {
  it("ends every session of the user, so that neither refresh token refreshes, and leaves other users' alone", async () => {
    const { auth, user, first, second, other, othersGrant } = await signedInTwice();

    await auth.admin.signOutUser({ admin: serviceKey, userId: user.id, context });

    expect(await auth.admin.listSessions({ userId: user.id })).toEqual([]);
    await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: first.refreshToken, context }));
    await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: second.refreshToken, context }));
    await failsWith("session_not_found", auth.authenticate({ accessToken: second.accessToken }));
    // The user can sign in again; the other user is still signed in.
    expect(await auth.admin.listSessions({ userId: other.id })).toHaveLength(1);
    await auth.refreshSession({ refreshToken: othersGrant.refreshToken, context });
    await auth.signInWithPassword({ email: user.email!, password: TEST_PASSWORD, context });
    expect(await auth.admin.listSessions({ userId: user.id })).toHaveLength(1);
  });

  it("records a global logout with the admin as the actor and the user in the traits", async () => {
    const { auth, stores, user } = await signedInTwice();
    const admin: AdminPrincipal = {
      role: "authenticated",
      userId: "00000000-0000-4000-8000-0000000000ad",
      claims: { email: "admin@example.com" },
    };

    await auth.admin.signOutUser({ admin: serviceKey, userId: user.id, context });
    await auth.admin.signOutUser({ admin, userId: user.id, context });

    const { entries } = await stores.auditLog.list({ page: 1, perPage: 2 });
    expect(entries.map((entry) => ({ ...entry, id: undefined, createdAt: undefined }))).toEqual([
      {
        id: undefined,
        createdAt: undefined,
        action: "logout",
        actorId: admin.userId,
        actorUsername: "admin@example.com",
        actorName: null,
        traits: { user_id: user.id, user_email: user.email, user_phone: "", scope: "global" },
        ipAddress: context.ip,
        userAgent: context.userAgent,
      },
      expect.objectContaining({ action: "logout", actorId: NO_USER_ID, actorUsername: "service_role" }),
    ]);
  });

  it("refuses a user that does not exist, and records nothing", async () => {
    const { auth, stores } = await signedIn();
    const before = (await stores.auditLog.list({ page: 1, perPage: 100 })).total;
    await failsWith("user_not_found", auth.admin.signOutUser({ admin: serviceKey, userId: UNKNOWN_USER, context }));
    expect((await stores.auditLog.list({ page: 1, perPage: 100 })).total).toBe(before);
  });
});
