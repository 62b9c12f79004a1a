import { beforeAll, describe, expect, it } from "vitest";
import { isAuthError } from "../../../errors.ts";
import type { AuditEntry } from "../../../model/audit.ts";
import type { RefreshToken } from "../../../model/refresh-token.ts";
import type { Session } from "../../../model/session.ts";
import type { User } from "../../../model/user.ts";
import type { Stores, Transactor } from "../../../ports/stores.ts";
import { aSession, aUser } from "../../builders.ts";
import {
  aFactor,
  anOAuthClient,
  aRefreshToken,
  digest,
  type StoreContractHarness,
  storeSession,
  t,
  uniqueTag,
  uuid,
} from "./support.ts";

function anAuditEntry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: uuid(),
    action: "login",
    actorId: uuid(),
    actorUsername: `actor-${uniqueTag()}@example.com`,
    actorName: null,
    traits: { provider: "email" },
    ipAddress: "203.0.113.7",
    userAgent: "contract",
    createdAt: t("10:00:00.000"),
    ...overrides,
  };
}

/** The audit entries of one actor, in the order they were written. */
async function auditOf(stores: Stores, actorUsername: string): Promise<AuditEntry[]> {
  return (await stores.auditLog.list({ page: 1, perPage: 10, author: actorUsername })).entries.reverse();
}

/**
 * What a `SessionStore` and a `RefreshTokenStore` must do: opening, rotating and ending sessions, each as one write,
 * and finding a token's family.
 */
export function describeSessionsContract(harness: StoreContractHarness): void {
  describe("sessions and refresh tokens", () => {
    let stores: Stores;
    let tx: Transactor;
    beforeAll(() => {
      ({ stores, tx } = harness());
    });

    it("finds a refresh token by digest with its session and user", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const session = aSession(user.id, {
        previousRefreshTokenId: uuid(),
        rotatedAt: t("08:30:00.125"),
        notAfter: t("20:00:00.999"),
      });
      const token = aRefreshToken(session.id, { parentId: uuid() });
      await storeSession(stores, session, token);

      const found = await tx.run((s) => s.refreshTokens.lockForRefresh(token.tokenHash));
      expect(found).toEqual({ token, session: { ...session, refreshTokenId: token.id }, user });
      expect(await tx.run((s) => s.refreshTokens.lockForRefresh(digest()))).toBeNull();
    });

    it("writes a session's refresh pointers and what it saw of the client", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const session = aSession(user.id);
      const first = aRefreshToken(session.id);
      const second = aRefreshToken(session.id, { parentId: first.id });
      await storeSession(stores, session, first);
      expect(await stores.sessions.rotate({ ...session, refreshTokenId: first.id }, second)).toBe(true);
      const rotated = {
        ...session,
        refreshTokenId: second.id,
        previousRefreshTokenId: first.id,
        rotatedAt: t("14:00:00.321"),
        ip: "203.0.113.9",
        userAgent: "curl/8",
        aal: "aal2" as const,
        amr: [{ method: "totp" as const, at: t("14:00:00.000") }, ...session.amr],
        factorId: uuid(),
        updatedAt: t("14:00:00.321"),
      };
      await stores.sessions.update(rotated);
      expect((await stores.users.findWithSession(user.id, session.id))?.session).toEqual(rotated);
      expect((await stores.refreshTokens.findForRefresh(second.tokenHash))?.session).toEqual(rotated);
      expect((await tx.run((s) => s.refreshTokens.lockForRefresh(second.tokenHash)))?.token).toEqual(second);
    });

    it("gives a token at most one child", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const session = aSession(user.id);
      const parent = await storeSession(stores, session);
      const [child, sibling] = [
        aRefreshToken(session.id, { parentId: parent.id }),
        aRefreshToken(session.id, { parentId: parent.id }),
      ];
      const stored = { ...session, refreshTokenId: parent.id };
      expect(
        await stores.sessions.rotate({ ...stored, refreshTokenId: child.id, previousRefreshTokenId: parent.id }, child),
      ).toBe(true);
      expect(
        await stores.sessions.rotate(
          { ...stored, refreshTokenId: sibling.id, previousRefreshTokenId: parent.id },
          sibling,
        ),
      ).toBe(false);
      expect(await tx.run((s) => s.refreshTokens.lockForRefresh(sibling.tokenHash))).toBeNull();
    });

    it("opens a session with the first token of its family and its audit entries, or writes none of them", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const session = aSession(user.id);
      const token = aRefreshToken(session.id);
      const signedUp = anAuditEntry({ action: "user_signedup", actorId: user.id });
      const login = anAuditEntry({ action: "login", actorId: user.id, actorUsername: signedUp.actorUsername });
      await stores.sessions.open({ ...session, refreshTokenId: token.id }, token, [signedUp, login]);
      expect((await stores.users.findWithSession(user.id, session.id))?.session).toEqual({
        ...session,
        refreshTokenId: token.id,
      });
      expect((await tx.run((s) => s.refreshTokens.lockForRefresh(token.tokenHash)))?.token).toEqual(token);
      expect(await auditOf(stores, signedUp.actorUsername)).toEqual([signedUp, login]);

      // Without audit entries, as a sign-in inside a larger transaction that records its own.
      const quiet = aSession(user.id);
      const quietToken = aRefreshToken(quiet.id);
      await stores.sessions.open({ ...quiet, refreshTokenId: quietToken.id }, quietToken);
      expect((await stores.users.findWithSession(user.id, quiet.id))?.session).toEqual({
        ...quiet,
        refreshTokenId: quietToken.id,
      });

      // A token whose digest is taken: the session must not be left without its token, nor the log tell of it.
      const orphan = aSession(user.id);
      const clash = { ...aRefreshToken(orphan.id), tokenHash: token.tokenHash };
      const untold = anAuditEntry({ actorId: user.id });
      await expect(stores.sessions.open({ ...orphan, refreshTokenId: clash.id }, clash, [untold])).rejects.toThrow();
      expect((await stores.users.findWithSession(user.id, orphan.id))?.session).toBeNull();
      expect(await auditOf(stores, untold.actorUsername)).toEqual([]);
    });

    it("opens a session for a password sign-in only while the password it verified is still the user's", async () => {
      const user = aUser({ passwordHash: "hash-1", userMetadata: { untouched: true } });
      await stores.users.insert(user);
      const signIn = async (at: Date, verifiedHash: string, rehash?: string) => {
        const session = { ...aSession(user.id), createdAt: at, updatedAt: at };
        const token = aRefreshToken(session.id);
        const audit = anAuditEntry({ actorId: user.id, createdAt: at });
        const opened = { ...session, refreshTokenId: token.id };
        const recorded = await stores.sessions.openWithPassword({ at, verifiedHash, rehash }, opened, token, [audit]);
        const found = await stores.users.findWithSession(user.id, session.id);
        const locked = await tx.run((s) => s.refreshTokens.lockForRefresh(token.tokenHash));
        return {
          recorded,
          opened,
          found,
          token: locked?.token ?? null,
          audit: await auditOf(stores, audit.actorUsername),
          entry: audit,
        };
      };

      const first = await signIn(t("15:00:00.000"), "hash-1");
      expect(first.recorded).toBe(true);
      expect(first.found).toEqual({ user: { ...user, lastSignInAt: t("15:00:00.000") }, session: first.opened });
      expect(first.token?.sessionId).toBe(first.opened.id);
      expect(first.audit).toEqual([first.entry]);

      const rehashed = await signIn(t("15:01:00.000"), "hash-1", "hash-2");
      expect(rehashed.recorded).toBe(true);
      expect(rehashed.found?.user).toMatchObject({ passwordHash: "hash-2", lastSignInAt: t("15:01:00.000") });

      // Verified against the old hash, landing after a password change: nothing is written.
      const stale = await signIn(t("15:02:00.000"), "hash-1", "hash-3");
      expect(stale.recorded).toBe(false);
      expect(stale.found).toEqual({ user: rehashed.found!.user, session: null });
      expect(stale.token).toBeNull();
      expect(stale.audit).toEqual([]);

      // All or nothing: a token whose digest is taken leaves the user, the session and the log untouched.
      const session = aSession(user.id);
      const clash = { ...aRefreshToken(session.id), tokenHash: first.token!.tokenHash };
      const untold = anAuditEntry({ actorId: user.id });
      const failing = stores.sessions.openWithPassword(
        { at: t("15:03:00.000"), verifiedHash: "hash-2" },
        session,
        clash,
        [untold],
      );
      await expect(failing).rejects.toThrow();
      expect(await stores.users.findWithSession(user.id, session.id)).toEqual({
        user: rehashed.found!.user,
        session: null,
      });
      expect(await auditOf(stores, untold.actorUsername)).toEqual([]);
    });

    it("opens a new user's first session with the user, its identities and the log, or writes none of them", async () => {
      const user = aUser({ lastSignInAt: t("16:00:00.000") });
      const session = aSession(user.id);
      const token = aRefreshToken(session.id);
      const signedUp = anAuditEntry({ action: "user_signedup", actorId: user.id });
      const login = anAuditEntry({ action: "login", actorId: user.id, actorUsername: signedUp.actorUsername });
      const opened = { ...session, refreshTokenId: token.id };
      await stores.sessions.openForNewUser(user, opened, token, [signedUp, login]);
      expect(await stores.users.findWithSession(user.id, session.id)).toEqual({ user, session: opened });
      expect((await stores.refreshTokens.findForRefresh(token.tokenHash))?.token).toEqual(token);
      expect(await auditOf(stores, signedUp.actorUsername)).toEqual([signedUp, login]);

      // Without identities or an address (as an anonymous user would be).
      const bare = aUser({ email: null });
      const bareSession = aSession(bare.id);
      const bareToken = aRefreshToken(bareSession.id);
      await stores.sessions.openForNewUser(bare, bareSession, bareToken, []);
      expect(await stores.users.findWithSession(bare.id, bareSession.id)).toEqual({
        user: bare,
        session: bareSession,
      });

      // Refused: an address another user holds, and a first token whose digest is taken. Nothing of either is kept.
      const phone = `+1555${Math.floor(Math.random() * 1e7)}`;
      await stores.users.insert(aUser({ email: null, phone }));
      const refusals: [User, "email_exists" | "phone_exists" | null][] = [
        [aUser({ email: user.email }), "email_exists"],
        [aUser({ phone }), "phone_exists"],
        [aUser(), null],
      ];
      for (const [refused, code] of refusals) {
        const refusedSession = aSession(refused.id);
        const refusedToken =
          code === null
            ? { ...aRefreshToken(refusedSession.id), tokenHash: token.tokenHash }
            : aRefreshToken(refusedSession.id);
        const untold = anAuditEntry({ actorId: refused.id });
        const error = await stores.sessions
          .openForNewUser(refused, refusedSession, refusedToken, [untold])
          .catch((e: unknown) => e);
        if (code === null) expect(error).toBeInstanceOf(Error);
        else expect(isAuthError(error, code)).toBe(true);
        expect(await stores.users.findById(refused.id)).toBeNull();
        expect(await stores.users.findWithSession(refused.id, refusedSession.id)).toBeNull();
        expect(await auditOf(stores, untold.actorUsername)).toEqual([]);
      }
      if (user.email !== null) expect((await stores.users.findByEmail(user.email))?.id).toBe(user.id);
    });

    it("opens no session for a password sign-in of a user that does not exist, or was deleted meanwhile", async () => {
      const deleted = aUser({ passwordHash: "hash-1", deletedAt: t("14:00:00.000") });
      await stores.users.insert(deleted);
      for (const userId of [uuid(), deleted.id]) {
        const session = aSession(userId);
        const token = aRefreshToken(session.id);
        const audit = anAuditEntry();
        expect(
          await stores.sessions.openWithPassword({ at: t("15:00:00.000"), verifiedHash: "hash-1" }, session, token, [
            audit,
          ]),
        ).toBe(false);
        expect(await tx.run((s) => s.refreshTokens.lockForRefresh(token.tokenHash))).toBeNull();
        expect(await auditOf(stores, audit.actorUsername)).toEqual([]);
      }
      expect((await stores.users.findById(deleted.id))?.lastSignInAt).toEqual(deleted.lastSignInAt);
    });

    it("rotates: adds the child token and points the session at it, or does neither", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const session = aSession(user.id);
      const parent = aRefreshToken(session.id);
      await stores.sessions.open({ ...session, refreshTokenId: parent.id }, parent);
      const child = aRefreshToken(session.id, { parentId: parent.id });
      const rotated = {
        ...session,
        refreshTokenId: child.id,
        previousRefreshTokenId: parent.id,
        rotatedAt: t("15:00:00.123"),
        ip: "203.0.113.10",
        updatedAt: t("15:00:00.123"),
      };
      const refreshed = anAuditEntry({ action: "token_refreshed", actorId: user.id });
      expect(await tx.run((s) => s.sessions.rotate(rotated, child, [refreshed]))).toBe(true);
      expect((await stores.users.findWithSession(user.id, session.id))?.session).toEqual(rotated);
      expect((await stores.refreshTokens.findForRefresh(child.tokenHash))?.token).toEqual(child);
      expect(await auditOf(stores, refreshed.actorUsername)).toEqual([refreshed]);

      // A rotation of the parent decided before the first landed: the session keeps pointing at the first
      // child, no second child is stored, and the log does not tell of a refresh that did not happen.
      const sibling = aRefreshToken(session.id, { parentId: parent.id });
      const untold = anAuditEntry({ action: "token_refreshed", actorId: user.id });
      expect(await stores.sessions.rotate({ ...rotated, refreshTokenId: sibling.id }, sibling, [untold])).toBe(false);
      expect((await stores.users.findWithSession(user.id, session.id))?.session).toEqual(rotated);
      expect(await stores.refreshTokens.findForRefresh(sibling.tokenHash)).toBeNull();
      expect(await auditOf(stores, untold.actorUsername)).toEqual([]);

      // A child whose digest is taken: the session is not moved, and nothing is logged.
      const clash = { ...aRefreshToken(session.id, { parentId: child.id }), tokenHash: parent.tokenHash };
      await expect(
        stores.sessions.rotate({ ...rotated, refreshTokenId: clash.id, previousRefreshTokenId: child.id }, clash, [
          untold,
        ]),
      ).rejects.toThrow();
      expect((await stores.users.findWithSession(user.id, session.id))?.session).toEqual(rotated);
      expect(await auditOf(stores, untold.actorUsername)).toEqual([]);
    });

    it("rotates the token pointers and the client, never the level a factor's removal just lowered", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const factorId = uuid();
      const at = t("15:00:00.000");
      const session = aSession(user.id, {
        aal: "aal2",
        factorId,
        amr: [
          { method: "totp", at },
          { method: "password", at },
        ],
      });
      const parent = aRefreshToken(session.id);
      await stores.sessions.open({ ...session, refreshTokenId: parent.id }, parent);
      // A refresh read the session at aal2; the factor is removed before its rotation lands.
      const child = aRefreshToken(session.id, { parentId: parent.id });
      const rotated = {
        ...session,
        refreshTokenId: child.id,
        previousRefreshTokenId: parent.id,
        rotatedAt: t("15:01:00.000"),
        ip: "203.0.113.11",
        updatedAt: t("15:01:00.000"),
      };
      await stores.sessions.downgradeFactor(user.id, factorId, "totp", t("15:00:30.000"));
      expect(await stores.sessions.rotate(rotated, child, [])).toBe(true);
      expect((await stores.users.findWithSession(user.id, session.id))?.session).toEqual({
        ...rotated,
        aal: "aal1",
        factorId: null,
        amr: [{ method: "password", at }],
      });
    });

    it("rotates nothing of a session ended or deleted since it was read", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const rotationOf = async (session: Session) => {
        const parent = aRefreshToken(session.id);
        await stores.sessions.open({ ...session, refreshTokenId: parent.id }, parent);
        const child = aRefreshToken(session.id, { parentId: parent.id });
        const rotated = {
          ...session,
          refreshTokenId: child.id,
          previousRefreshTokenId: parent.id,
          rotatedAt: t("15:00:00.000"),
        };
        return { rotated, child, audit: anAuditEntry({ action: "token_refreshed", actorId: user.id }) };
      };

      const ended = aSession(user.id);
      const late = await rotationOf(ended);
      await stores.sessions.endAllOfUser(user.id, t("14:59:00.000"));
      expect(await stores.sessions.rotate(late.rotated, late.child, [late.audit])).toBe(false);
      expect((await stores.users.findWithSession(user.id, ended.id))?.session).toMatchObject({
        notAfter: t("14:59:00.000"),
        rotatedAt: null,
      });
      expect(await stores.refreshTokens.findForRefresh(late.child.tokenHash)).toBeNull();
      expect(await auditOf(stores, late.audit.actorUsername)).toEqual([]);

      const signedOut = aSession(user.id);
      const gone = await rotationOf(signedOut);
      await stores.sessions.deleteOne(user.id, signedOut.id);
      expect(await stores.sessions.rotate(gone.rotated, gone.child, [gone.audit])).toBe(false);
      expect((await stores.users.findWithSession(user.id, signedOut.id))?.session).toBeNull();
      expect(await auditOf(stores, gone.audit.actorUsername)).toEqual([]);

      // An end already known to the rotation is no change: a session with a future end still rotates.
      const timeboxed = { ...aSession(user.id), notAfter: t("23:00:00.000") };
      const known = await rotationOf(timeboxed);
      expect(await stores.sessions.rotate(known.rotated, known.child, [known.audit])).toBe(true);
      expect((await stores.users.findWithSession(user.id, timeboxed.id))?.session).toEqual(known.rotated);
    });

    it("finds a refresh token without a lock, outside any transaction", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const session = aSession(user.id);
      const token = aRefreshToken(session.id);
      await stores.sessions.open({ ...session, refreshTokenId: token.id }, token);
      expect(await stores.refreshTokens.findForRefresh(token.tokenHash)).toEqual({
        token,
        session: { ...session, refreshTokenId: token.id },
        user,
      });
      expect(await stores.refreshTokens.findForRefresh(digest())).toBeNull();
    });

    it("lets one transaction at a time hold a family, and shows the next one what the first wrote", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const session = aSession(user.id);
      const token = aRefreshToken(session.id);
      await storeSession(stores, session, token);

      let signalLocked!: () => void;
      const locked = new Promise<void>((resolve) => (signalLocked = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const child = aRefreshToken(session.id, { parentId: token.id });

      const first = tx.run(async (s) => {
        const found = await s.refreshTokens.lockForRefresh(token.tokenHash);
        signalLocked();
        await released;
        await s.sessions.rotate(
          { ...found!.session, refreshTokenId: child.id, previousRefreshTokenId: token.id },
          child,
        );
      });
      await locked;
      let secondDone = false;
      const second = tx.run(async (s) => {
        const found = await s.refreshTokens.lockForRefresh(token.tokenHash);
        secondDone = true;
        return found?.session;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(secondDone).toBe(false);
      release();
      await first;
      expect(await second).toMatchObject({ refreshTokenId: child.id, previousRefreshTokenId: token.id });
    });

    it("deletes every session of a user with its tokens, or all but one", async () => {
      const user = aUser();
      const other = aUser();
      await stores.users.insert(user);
      await stores.users.insert(other);
      const [a, b, c] = [aSession(user.id), aSession(user.id), aSession(user.id)];
      const othersSession = aSession(other.id);
      const [, tokenOfB] = [
        await storeSession(stores, a),
        await storeSession(stores, b),
        await storeSession(stores, c),
      ];
      await storeSession(stores, othersSession);

      await stores.sessions.deleteAllOfUser(user.id, { except: a.id });
      expect((await stores.users.findWithSession(user.id, a.id))?.session?.id).toBe(a.id);
      expect((await stores.users.findWithSession(user.id, b.id))?.session).toBeNull();
      expect(await tx.run((s) => s.refreshTokens.lockForRefresh(tokenOfB.tokenHash))).toBeNull();

      await stores.sessions.deleteAllOfUser(user.id);
      expect((await stores.users.findWithSession(user.id, a.id))?.session).toBeNull();
      expect((await stores.users.findWithSession(other.id, othersSession.id))?.session?.id).toBe(othersSession.id);
    });

    it("deletes one session of its user only", async () => {
      const user = aUser();
      const other = aUser();
      await stores.users.insert(user);
      await stores.users.insert(other);
      const mine = aSession(user.id);
      const theirs = aSession(other.id);
      await storeSession(stores, mine);
      await storeSession(stores, theirs);

      await stores.sessions.deleteOne(user.id, theirs.id);
      expect((await stores.users.findWithSession(other.id, theirs.id))?.session?.id).toBe(theirs.id);
      await stores.sessions.deleteOne(user.id, mine.id);
      expect((await stores.users.findWithSession(user.id, mine.id))?.session).toBeNull();
    });

    it("deletes only the aal1 sessions of a user when asked, all but one or all of them", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const aal2 = { aal: "aal2" as const, factorId: uuid() };
      const [current, aal1, stepped, alsoStepped] = [
        aSession(user.id),
        aSession(user.id),
        aSession(user.id, aal2),
        aSession(user.id, aal2),
      ];
      const othersSession = aSession(other.id);
      const tokenOfAal1 = await storeSession(stores, aal1);
      for (const session of [current, stepped, alsoStepped, othersSession]) await storeSession(stores, session);
      const remaining = async () => {
        const found = await Promise.all(
          [current, aal1, stepped, alsoStepped].map((s) => stores.users.findWithSession(user.id, s.id)),
        );
        return found.flatMap((each) => (each?.session ? [each.session.id] : []));
      };

      await stores.sessions.deleteAllOfUser(user.id, { except: current.id, onlyAal1: true });
      expect(await remaining()).toEqual([current.id, stepped.id, alsoStepped.id]);
      expect(await stores.refreshTokens.findForRefresh(tokenOfAal1.tokenHash)).toBeNull();
      await stores.sessions.deleteAllOfUser(user.id, { onlyAal1: true });
      expect(await remaining()).toEqual([stepped.id, alsoStepped.id]);
      await stores.sessions.deleteAllOfUser(user.id, { except: stepped.id, onlyAal1: false });
      expect(await remaining()).toEqual([stepped.id]);
      expect((await stores.users.findWithSession(other.id, othersSession.id))?.session?.id).toBe(othersSession.id);
    });

    it("downgrades to aal1 the sessions of a user a factor took to aal2, dropping the factor's method from their amr", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const [factor, otherFactor] = [aFactor(user.id, { status: "verified" }), aFactor(user.id)];
      for (const each of [factor, otherFactor]) await stores.factors.insert(each);
      const at = (time: string) => ({ at: t(time) });
      const byFactor = (factorId: string, amr: Session["amr"]) =>
        aSession(user.id, { aal: "aal2", factorId, amr, updatedAt: t("08:10:00.000") });
      const stepped = byFactor(factor.id, [
        { method: "totp", ...at("08:05:00.125") },
        { method: "password", ...at("08:00:00.250") },
      ]);
      // The factor's method only goes: the other entries stay, in their order.
      const mixed = byFactor(factor.id, [
        { method: "otp", ...at("08:03:00.000") },
        { method: "totp", ...at("08:02:00.000") },
        { method: "mfa/phone", ...at("08:01:00.000") },
        { method: "magiclink", ...at("08:00:00.000") },
      ]);
      const onlyTheFactor = byFactor(factor.id, [{ method: "totp", ...at("08:04:00.000") }]);
      const byOtherFactor = byFactor(otherFactor.id, [{ method: "totp", ...at("08:06:00.000") }]);
      const unstepped = aSession(user.id);
      const othersSession = aSession(other.id, { aal: "aal2", factorId: factor.id, amr: stepped.amr });
      for (const session of [stepped, mixed, onlyTheFactor, byOtherFactor, unstepped, othersSession]) {
        await storeSession(stores, session);
      }
      const sessionOf = async (session: Session) =>
        (await stores.users.findWithSession(session.userId, session.id))?.session;
      const downgraded = (session: Session, amr: Session["amr"], updatedAt: Date) => ({
        ...session,
        refreshTokenId: expect.any(String),
        aal: "aal1",
        factorId: null,
        amr,
        updatedAt,
      });

      await stores.sessions.downgradeFactor(user.id, factor.id, "totp", t("19:00:00.500"));
      expect(await sessionOf(stepped)).toEqual(downgraded(stepped, [stepped.amr[1]!], t("19:00:00.500")));
      expect(await sessionOf(mixed)).toEqual(
        downgraded(mixed, [mixed.amr[0]!, mixed.amr[2]!, mixed.amr[3]!], t("19:00:00.500")),
      );
      expect(await sessionOf(onlyTheFactor)).toEqual(downgraded(onlyTheFactor, [], t("19:00:00.500")));
      for (const untouched of [byOtherFactor, unstepped, othersSession]) {
        expect(await sessionOf(untouched)).toMatchObject({ aal: untouched.aal, factorId: untouched.factorId });
        expect((await sessionOf(untouched))?.amr).toEqual(untouched.amr);
      }

      // Whether the factor is deleted before or after, in the same transaction: the sessions still point at it.
      await tx.run(async (s) => {
        expect(await s.factors.delete(user.id, otherFactor.id)).toBe(true);
        await s.sessions.downgradeFactor(user.id, otherFactor.id, "totp", t("19:01:00.000"));
      });
      expect(await sessionOf(byOtherFactor)).toEqual(downgraded(byOtherFactor, [], t("19:01:00.000")));
    });

    it("keeps the client and scopes a session was opened with, through every opening, update and rotation", async () => {
      const client = anOAuthClient();
      await stores.oauthClients.insert(client);
      const user = aUser({ passwordHash: "hash-1" });
      const held = { oauthClientId: client.id, scopes: "openid email offline_access" };
      const opened = async (session: Session) =>
        (await stores.users.findWithSession(session.userId, session.id))?.session;
      // Each session's first token, made once.
      const tokens = new Map<string, RefreshToken>();
      const tokenOf = (session: Session) => {
        const token = tokens.get(session.id) ?? aRefreshToken(session.id, { id: session.refreshTokenId! });
        tokens.set(session.id, token);
        return token;
      };
      const withToken = (session: Session) => ({ ...session, refreshTokenId: uuid() });

      const [signedUp, signedIn] = [withToken(aSession(user.id, held)), withToken(aSession(user.id, held))];
      await stores.sessions.openForNewUser(user, signedUp, tokenOf(signedUp), []);
      const passwordSignIn = { at: t("16:00:00.000"), verifiedHash: "hash-1" };
      expect(await stores.sessions.openWithPassword(passwordSignIn, signedIn, tokenOf(signedIn), [])).toBe(true);
      const plain = withToken(aSession(user.id, { ...held, scopes: "" }));
      await stores.sessions.open(plain, tokenOf(plain));
      const firstParty = withToken(aSession(user.id, { oauthClientId: null, scopes: null }));
      await stores.sessions.open(firstParty, tokenOf(firstParty));
      for (const session of [signedUp, signedIn, plain, firstParty]) expect(await opened(session)).toEqual(session);
      expect((await stores.refreshTokens.findForRefresh(tokenOf(signedIn).tokenHash))?.session).toEqual(signedIn);

      // Neither an update nor a rotation moves a session to another client, nor makes one first-party.
      const changed = { ...signedIn, aal: "aal2" as const, factorId: uuid(), updatedAt: t("16:01:00.000") };
      await stores.sessions.update({ ...changed, oauthClientId: null, scopes: null });
      expect(await opened(signedIn)).toEqual(changed);
      const child = aRefreshToken(signedIn.id, { parentId: signedIn.refreshTokenId });
      const rotated = { ...changed, refreshTokenId: child.id, previousRefreshTokenId: signedIn.refreshTokenId };
      const elsewhere = { oauthClientId: uuid(), scopes: "phone" };
      expect(await stores.sessions.rotate({ ...rotated, ...elsewhere }, child)).toBe(true);
      expect(await opened(signedIn)).toEqual(rotated);
      expect((await tx.run((s) => s.refreshTokens.lockForRefresh(child.tokenHash)))?.session).toEqual(rotated);
      await stores.sessions.update({ ...firstParty, ...held });
      expect(await opened(firstParty)).toEqual(firstParty);
    });

    it("deletes the sessions a client holds for the user, with their tokens, and no other", async () => {
      const [client, otherClient] = [anOAuthClient(), anOAuthClient()];
      for (const each of [client, otherClient]) await stores.oauthClients.insert(each);
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const of = (userId: string, oauthClientId: string | null) =>
        aSession(userId, { oauthClientId, scopes: oauthClientId === null ? null : "openid" });
      const [held, alsoHeld] = [of(user.id, client.id), of(user.id, client.id)];
      const kept = [of(user.id, otherClient.id), of(user.id, null), of(other.id, client.id)];
      const tokens = new Map<string, string>();
      for (const session of [held, alsoHeld, ...kept]) {
        tokens.set(session.id, (await storeSession(stores, session)).tokenHash);
      }
      const found = (session: Session) => stores.refreshTokens.findForRefresh(tokens.get(session.id)!);

      await stores.sessions.deleteOfClient(user.id, client.id);
      for (const session of [held, alsoHeld]) {
        expect((await stores.users.findWithSession(user.id, session.id))?.session).toBeNull();
        expect(await found(session)).toBeNull();
        expect(await tx.run((s) => s.refreshTokens.lockForRefresh(tokens.get(session.id)!))).toBeNull();
      }
      for (const session of kept) expect((await found(session))?.session.id).toBe(session.id);
      // Ids from requests: one that is no uuid names nothing, and throws nothing.
      await stores.sessions.deleteOfClient("not-a-uuid", client.id);
      await stores.sessions.deleteOfClient(user.id, "not-a-uuid");
      for (const session of kept) expect((await found(session))?.session.id).toBe(session.id);
    });

    it("ends every session of a user at a moment, keeping an earlier end and other users' sessions", async () => {
      const user = aUser();
      const other = aUser();
      await stores.users.insert(user);
      await stores.users.insert(other);
      const open = aSession(user.id);
      const endedEarlier = { ...aSession(user.id), notAfter: new Date("2030-01-01T00:00:00.000Z") };
      const theirs = aSession(other.id);
      for (const session of [open, endedEarlier, theirs]) await storeSession(stores, session);

      const at = new Date("2031-06-01T12:00:00.000Z");
      await stores.sessions.endAllOfUser(user.id, at);
      expect((await stores.users.findWithSession(user.id, open.id))?.session?.notAfter).toEqual(at);
      expect((await stores.users.findWithSession(user.id, endedEarlier.id))?.session?.notAfter).toEqual(
        endedEarlier.notAfter,
      );
      expect((await stores.users.findWithSession(other.id, theirs.id))?.session?.notAfter).toBeNull();
    });

    it("lists every session of a user, ended ones too, and no one else's", async () => {
      const user = aUser();
      const other = aUser();
      await stores.users.insert(user);
      await stores.users.insert(other);
      const open = aSession(user.id, { rotatedAt: t("09:00:00.250") });
      const ended = { ...aSession(user.id), notAfter: t("08:00:00.000") };
      const theirs = aSession(other.id);
      for (const session of [open, ended, theirs]) await storeSession(stores, session);

      const listed = await stores.sessions.listOfUser(user.id);
      expect(listed.map((session) => session.id).sort()).toEqual([open.id, ended.id].sort());
      expect(listed.find((session) => session.id === open.id)?.rotatedAt).toEqual(t("09:00:00.250"));
      expect(listed.find((session) => session.id === ended.id)?.notAfter).toEqual(t("08:00:00.000"));
      expect(await stores.sessions.listOfUser(uuid())).toEqual([]);
      expect(await stores.sessions.listOfUser("not-a-uuid")).toEqual([]);
    });
  });
}
