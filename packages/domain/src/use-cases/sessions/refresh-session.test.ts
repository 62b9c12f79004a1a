import { describe, expect, it } from "vitest";
import type { SessionGrant } from "../../deps.ts";
import type { RefreshToken } from "../../model/refresh-token.ts";
import { refreshTokenDigest } from "../../services/tokens/digests.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { createInMemoryStores } from "../../testing/in-memory-stores.ts";
import { nodeRandom } from "../../testing/node-random.ts";

const password = "s3cret-pass";

async function signedIn(options: TestAuthOptions = {}) {
  const testAuth = createTestAuth(options);
  const user = aUser({ passwordHash: await testAuth.hasher.hash(password) });
  await testAuth.stores.users.insert(user);
  const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
  return { ...testAuth, user, grant };
}

describe("refresh a session", () => {
  it("exchanges the valid token for a new access token and a new refresh token in the same session", async () => {
    const { auth, grant, clock } = await signedIn();
    clock.advance({ minutes: 30 });
    const next = await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    expect(next.refreshToken).not.toBe(grant.refreshToken);
    expect(next.refreshToken.length).toBeGreaterThanOrEqual(22);
    expect(next.accessToken).not.toBe(grant.accessToken);
    expect(next.session.id).toBe(grant.session.id);
    expect(next.session.amr).toEqual(grant.session.amr);
    expect(next.user.id).toBe(grant.user.id);
    expect(next.expiresAt).toBe(Math.floor(clock.now().getTime() / 1000) + 3600);
  });

  it("answers the token just replaced with the same child, within the reuse interval", async () => {
    const { auth, grant, clock } = await signedIn();
    const child = await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    clock.advance({ seconds: 9 });
    const again = await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    expect(again.refreshToken).toBe(child.refreshToken);
    const grandchild = await auth.refreshSession({ refreshToken: again.refreshToken, context });
    expect(grandchild.refreshToken).not.toBe(child.refreshToken);
  });

  it("treats the replaced token as stolen after the interval: the session ends even though the request fails", async () => {
    const { auth, grant, clock } = await signedIn();
    const child = await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    clock.advance({ seconds: 11 });
    const error = await failsWith(
      "refresh_token_already_used",
      auth.refreshSession({ refreshToken: grant.refreshToken, context }),
    );
    expect(error.message).toBe("Invalid Refresh Token: Already Used");
    await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: child.refreshToken, context }));
    // The thief may hold the family's access tokens too: they stop working with it.
    await failsWith("session_not_found", auth.authenticate({ accessToken: child.accessToken }));
  });

  it("treats any older token as stolen at once, and ends only that session", async () => {
    const { auth, grant, user } = await signedIn();
    const otherDevice = await auth.signInWithPassword({ email: user.email!, password, context });
    const child = await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    const grandchild = await auth.refreshSession({ refreshToken: child.refreshToken, context });
    await failsWith("refresh_token_already_used", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: grandchild.refreshToken, context }));
    expect((await auth.refreshSession({ refreshToken: otherDevice.refreshToken, context })).session.id).toBe(
      otherDevice.session.id,
    );
  });

  it("without rotation enabled, refuses a replayed token but keeps the family", async () => {
    const { auth, grant, clock } = await signedIn({ policy: { refresh: { rotationEnabled: false } } });
    const child = await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    clock.advance({ seconds: 11 });
    await failsWith("refresh_token_already_used", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    expect((await auth.refreshSession({ refreshToken: child.refreshToken, context })).session.id).toBe(
      grant.session.id,
    );
  });

  it("answers the token before an imported one, within the interval, with a token that refreshes", async () => {
    const { auth, grant, clock, stores, ports } = await signedIn();
    // As `latchkey import gotrue` leaves a session: its current token is GoTrue's newest, not derived from the
    // previous one, which the client still holds (GoTrue's answer to its last refresh was lost).
    const found = await stores.refreshTokens.findForRefresh(refreshTokenDigest(ports.secrets, grant.refreshToken));
    const gotrueNewest: RefreshToken = {
      id: nodeRandom.uuid(),
      sessionId: grant.session.id,
      parentId: found!.token.id,
      tokenHash: refreshTokenDigest(ports.secrets, "gotrue-newest"),
      createdAt: clock.now(),
    };
    const imported = { ...found!.session, refreshTokenId: gotrueNewest.id, previousRefreshTokenId: found!.token.id };
    await stores.sessions.rotate({ ...imported, rotatedAt: clock.now() }, gotrueNewest);
    clock.advance({ seconds: 5 });

    const answered = await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    expect(answered.session.id).toBe(grant.session.id);
    const retried = await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    expect(retried.refreshToken).toBe(answered.refreshToken);
    clock.advance({ minutes: 30 });
    const next = await auth.refreshSession({ refreshToken: answered.refreshToken, context });
    expect(next.session.id).toBe(grant.session.id);
  });

  it("gives every one of many concurrent refreshes of one token the same single child", async () => {
    const { auth, grant } = await signedIn();
    const results = await Promise.all(
      Array.from({ length: 25 }, () => auth.refreshSession({ refreshToken: grant.refreshToken, context })),
    );
    expect(new Set(results.map((result) => result.refreshToken)).size).toBe(1);
    const next = await auth.refreshSession({ refreshToken: results[0]!.refreshToken, context });
    expect(next.session.id).toBe(grant.session.id);
  });

  describe("when another write lands between the read and the rotation", () => {
    /** Test auth whose unlocked refresh-token read is followed, once, by `meanwhile`, before the use case goes on. */
    async function withWriteAfterRead(meanwhile: (testAuth: Awaited<ReturnType<typeof signedIn>>) => Promise<void>) {
      const { stores, tx } = createInMemoryStores();
      let pending = true;
      const testAuth = await signedIn({
        ports: {
          tx,
          stores: {
            ...stores,
            refreshTokens: {
              ...stores.refreshTokens,
              async findForRefresh(tokenHash) {
                const found = await stores.refreshTokens.findForRefresh(tokenHash);
                if (pending) {
                  pending = false;
                  await meanwhile(testAuth);
                }
                return found;
              },
            },
          },
        },
      });
      pending = true;
      return testAuth;
    }

    it("a rotation that lost the race answers with the winner's child", async () => {
      let winner: SessionGrant | undefined;
      const { auth, grant, stores } = await withWriteAfterRead(async ({ auth, grant }) => {
        winner = await auth.refreshSession({ refreshToken: grant.refreshToken, context });
      });
      const late = await auth.refreshSession({ refreshToken: grant.refreshToken, context });
      expect(late.refreshToken).toBe(winner!.refreshToken);
      expect(late.session.refreshTokenId).toBe(winner!.session.refreshTokenId);
      expect((await stores.users.findWithSession(grant.user.id, grant.session.id))?.session).toEqual(late.session);
    });

    it("a session ended by a ban since the read grants nothing", async () => {
      const { auth, grant } = await withWriteAfterRead(async ({ stores, user, clock }) => {
        await stores.users.update({ ...user, bannedUntil: new Date("2099-01-01T00:00:00Z") });
        await stores.sessions.endAllOfUser(user.id, clock.now());
      });
      await failsWith("user_banned", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    });

    it("a session signed out since the read grants nothing", async () => {
      const { auth, grant } = await withWriteAfterRead(async ({ stores, user, grant }) => {
        await stores.sessions.deleteOne(user.id, grant.session.id);
      });
      await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    });
  });

  it("refuses unknown, empty and signed-out tokens, and banned users", async () => {
    const { auth, grant, stores, user } = await signedIn();
    await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: "no-such-token", context }));
    await failsWith("invalid_request", auth.refreshSession({ refreshToken: "", context }));

    await stores.users.update({ ...user, bannedUntil: new Date("2099-01-01T00:00:00Z") });
    await failsWith("user_banned", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    await stores.users.update({ ...user, bannedUntil: null });

    const principal = await auth.authenticate({ accessToken: grant.accessToken });
    await auth.signOut({ principal, scope: "global", context });
    await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
  });
});
