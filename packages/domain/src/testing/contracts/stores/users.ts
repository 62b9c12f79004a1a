import { beforeAll, describe, expect, it } from "vitest";
import { isAuthError } from "../../../errors.ts";
import type { AuditEntry } from "../../../model/audit.ts";
import type { Identity } from "../../../model/identity.ts";
import type { User } from "../../../model/user.ts";
import type { Stores, Transactor } from "../../../ports/stores.ts";
import { aSession, aUser } from "../../builders.ts";
import {
  aFlowState,
  anOtt,
  aRefreshToken,
  idsOf,
  rejection,
  type StoreContractHarness,
  storeSession,
  t,
  uniqueTag,
  uuid,
} from "./support.ts";

const byCreationThenId = (a: User, b: User) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * What a `UserStore` must do: round trips, lookups and uniqueness, the admin list, and what deleting a user takes
 * with it.
 */
export function describeUsersContract(harness: StoreContractHarness): void {
  describe("users", () => {
    let stores: Stores;
    beforeAll(() => {
      ({ stores } = harness());
    });

    it("round-trips every field of a user and its identities", async () => {
      const user = aUser({
        phone: `+1555${Math.floor(Math.random() * 1e7)}`,
        passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
        phoneConfirmedAt: t("10:00:00.123"),
        invitedAt: t("09:00:00.001"),
        confirmationSentAt: t("09:30:00.500"),
        recoverySentAt: t("09:31:00.000"),
        newEmail: "next@example.com",
        emailChangeSentAt: t("09:32:00.000"),
        emailChangeConfirmedBy: "current",
        newPhone: "+15550001111",
        phoneChangeSentAt: t("09:33:00.000"),
        reauthenticationSentAt: t("09:34:00.000"),
        lastSignInAt: t("09:35:00.999"),
        appMetadata: { provider: "email", providers: ["email"], plan: { tier: "gold", seats: 3 } },
        userMetadata: { name: 'Zoë "Z" O\'Neil', tags: ["a", "b"], nested: { deep: [1, { x: null }] } },
        bannedUntil: t("23:00:00.000"),
        isAnonymous: false,
        deletedAt: null,
      });
      await stores.users.insert(user);
      expect(await stores.users.findById(user.id)).toEqual(user);
    });

    it("finds users by exact email and phone, and answers null for strangers", async () => {
      const phone = `+4420${Math.floor(Math.random() * 1e8)}`;
      const user = aUser({ phone });
      await stores.users.insert(user);
      expect((await stores.users.findByEmail(user.email!))?.id).toBe(user.id);
      expect((await stores.users.findByPhone(phone))?.id).toBe(user.id);
      expect(await stores.users.findByEmail("nobody@example.com")).toBeNull();
      expect(await stores.users.findByPhone("+19999999999")).toBeNull();
      expect(await stores.users.findById(uuid())).toBeNull();
    });

    it("keeps a user without email or phone (anonymous)", async () => {
      const user = aUser({ email: null, isAnonymous: true, emailConfirmedAt: null, appMetadata: {} });
      await stores.users.insert(user);
      expect(await stores.users.findById(user.id)).toEqual(user);
    });

    it("refuses a second user with the same email or phone, and writes nothing of it", async () => {
      const phone = `+3361${Math.floor(Math.random() * 1e7)}`;
      const first = aUser({ phone });
      await stores.users.insert(first);

      const sameEmail = aUser({ email: first.email });
      expect(isAuthError(await rejection(stores.users.insert(sameEmail)), "email_exists")).toBe(true);
      expect(await stores.users.findById(sameEmail.id)).toBeNull();

      const samePhone = aUser({ phone });
      expect(isAuthError(await rejection(stores.users.insert(samePhone)), "phone_exists")).toBe(true);
      expect(await stores.users.findById(samePhone.id)).toBeNull();
    });

    it("refuses a new user with an identity another user holds (a sign-in that lost a race), and writes nothing of it", async () => {
      const first = aUser();
      const identity = { ...first.identities[0]!, provider: "github", providerId: `gh-${first.id}` };
      await stores.users.insert({ ...first, identities: [identity] });
      const second = aUser({ email: null });
      const taken = { ...identity, id: second.id, userId: second.id };
      const refused = await rejection(stores.users.insert({ ...second, identities: [taken] }));
      expect(isAuthError(refused, "identity_already_exists")).toBe(true);
      expect(await stores.users.findById(second.id)).toBeNull();
    });

    it("refuses an update that takes another user's email or phone", async () => {
      const phone = `+4915${Math.floor(Math.random() * 1e8)}`;
      const holder = aUser({ phone });
      const other = aUser();
      await stores.users.insert(holder);
      await stores.users.insert(other);
      expect(isAuthError(await rejection(stores.users.update({ ...other, email: holder.email })), "email_exists")).toBe(
        true,
      );
      expect(isAuthError(await rejection(stores.users.update({ ...other, phone })), "phone_exists")).toBe(true);
      expect((await stores.users.findById(other.id))?.email).toBe(other.email);
    });

    it("finds no SSO user by email or phone, and lets SSO users share an email with anyone", async () => {
      const email = `sso-${uniqueTag()}@example.com`;
      const phone = `+3162${Math.floor(Math.random() * 1e7)}`;
      // Two SSO users of one email (of two providers, say), one of them with a phone.
      const sso = aUser({ email, phone, isSsoUser: true });
      const otherSso = aUser({ email, isSsoUser: true });
      await stores.users.insert(sso);
      await stores.users.insert(otherSso);
      expect(await stores.users.findById(sso.id)).toEqual(sso);
      expect(await stores.users.findByEmail(email)).toBeNull();
      expect(await stores.users.findByPhone(phone)).toBeNull();

      // A user of the same email who is no SSO user holds it: found by it, and the only one.
      const holder = aUser({ email });
      await stores.users.insert(holder);
      expect((await stores.users.findByEmail(email))?.id).toBe(holder.id);
      const second = aUser({ email });
      expect(isAuthError(await rejection(stores.users.insert(second)), "email_exists")).toBe(true);
      expect(await stores.users.findById(second.id)).toBeNull();
      const moving = aUser();
      await stores.users.insert(moving);
      expect(isAuthError(await rejection(stores.users.update({ ...moving, email })), "email_exists")).toBe(true);

      // An SSO user may take a held email; a user may take one that SSO users alone hold.
      const later = aUser({ isSsoUser: true });
      await stores.users.insert(later);
      await stores.users.update({ ...later, email });
      expect((await stores.users.findById(later.id))?.email).toBe(email);
      expect((await stores.users.findByEmail(email))?.id).toBe(holder.id);
      const ssoOnly = aUser({ isSsoUser: true });
      await stores.users.insert(ssoOnly);
      await stores.users.update({ ...moving, email: ssoOnly.email });
      expect((await stores.users.findByEmail(ssoOnly.email!))?.id).toBe(moving.id);
      // The admin list finds every user of the email, SSO users too.
      const listed = await stores.users.list({ page: 1, perPage: 10, order: "asc", email });
      expect(idsOf(listed.users).sort()).toEqual(idsOf([sso, otherSso, holder, later]).sort());
    });

    it("writes every column on update, and leaves identities alone", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const changed = {
        ...user,
        role: "editor",
        email: `changed-${user.id.slice(0, 8)}@example.com`,
        phone: `+1202${Math.floor(Math.random() * 1e7)}`,
        passwordHash: "new-hash",
        emailConfirmedAt: null,
        phoneConfirmedAt: t("11:00:00.000"),
        newEmail: "pending@example.com",
        userMetadata: { theme: "dark" },
        appMetadata: { provider: "email", providers: ["email"], roles: ["x"] },
        bannedUntil: t("12:00:00.000"),
        lastSignInAt: t("11:30:00.000"),
        updatedAt: t("11:31:00.000"),
        identities: [],
      };
      await stores.users.update(changed);
      expect(await stores.users.findById(user.id)).toEqual({ ...changed, identities: user.identities });
    });

    it("returns identities oldest first, ties broken by id, whatever order they were written in", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const identity = (provider: string, createdAt: Date, id = uuid()): Identity => ({
        id,
        userId: user.id,
        provider,
        providerId: `${provider}-${user.id}`,
        identityData: { sub: user.id },
        lastSignInAt: null,
        createdAt,
        updatedAt: createdAt,
      });
      // Written newest first; of the two of 12:00, the greater id first.
      const [greater, lesser] = ["ffffffff", "00000000"].map((head) => `${head}${user.id.slice(8)}`);
      const oldest = identity("google", new Date("2025-12-31T00:00:00.000Z"));
      for (const each of [
        identity("phone", t("12:00:00.000"), greater),
        identity("github", t("12:00:00.000"), lesser),
        oldest,
      ]) {
        await stores.identities.save(each);
      }
      const found = await stores.users.findById(user.id);
      expect(found?.identities.map((each) => each.provider)).toEqual(["google", "email", "github", "phone"]);
      expect(found?.identities[0]).toEqual(oldest);
    });

    it("finds a user together with one of its sessions", async () => {
      const user = aUser();
      const stranger = aUser();
      await stores.users.insert(user);
      await stores.users.insert(stranger);
      // Every field set, so that each column is read back.
      const session = aSession(user.id, {
        aal: "aal2",
        amr: [
          { method: "password", at: t("08:00:00.250") },
          { method: "otp", at: t("08:01:00.500") },
        ],
        refreshTokenId: uuid(),
        previousRefreshTokenId: uuid(),
        rotatedAt: t("08:30:00.125"),
        notAfter: t("20:00:00.999"),
        factorId: uuid(),
        createdAt: t("08:00:00.250"),
        updatedAt: t("08:30:00.125"),
      });
      const strangersSession = aSession(stranger.id);
      await storeSession(stores, session);
      await storeSession(stores, strangersSession);

      expect(await stores.users.findWithSession(user.id, session.id)).toEqual({ user, session });
      expect(await stores.users.findWithSession(user.id, strangersSession.id)).toEqual({ user, session: null });
      expect(await stores.users.findWithSession(user.id, uuid())).toEqual({ user, session: null });
      expect(await stores.users.findWithSession(uuid(), session.id)).toBeNull();
    });
  });

  describe("listing and deleting users", () => {
    let stores: Stores;
    let tx: Transactor;
    beforeAll(() => {
      ({ stores, tx } = harness());
    });

    it("lists users a page at a time in either order, ties broken by id, and counts every match", async () => {
      const tag = `list-${uniqueTag()}`;
      const times = ["10:00:00.000", "10:02:00.000", "10:01:00.000", "10:02:00.000", "10:03:00.000"];
      const listed = times.map((time, i) => aUser({ email: `${tag}-${i}@example.com`, createdAt: t(time) }));
      for (const user of listed) await stores.users.insert(user);
      const ascending = [...listed].sort(byCreationThenId);
      const page = (page: number, order: "asc" | "desc") => stores.users.list({ page, perPage: 2, order, filter: tag });

      expect(await page(1, "asc")).toEqual({ users: ascending.slice(0, 2), total: 5 });
      expect(idsOf((await page(2, "asc")).users)).toEqual(idsOf(ascending.slice(2, 4)));
      expect(await page(3, "asc")).toEqual({ users: ascending.slice(4), total: 5 });
      expect(await page(4, "asc")).toEqual({ users: [], total: 5 });
      const descending = [...ascending].reverse();
      expect(idsOf((await page(1, "desc")).users)).toEqual(idsOf(descending.slice(0, 2)));
      expect(idsOf((await page(2, "desc")).users)).toEqual(idsOf(descending.slice(2, 4)));
      expect(idsOf((await page(3, "desc")).users)).toEqual(idsOf(descending.slice(4)));
    });

    it("filters on a case-insensitive substring of the email or of user_metadata.full_name", async () => {
      const tag = uniqueTag();
      const byEmail = aUser({ email: `filter-${tag}@example.com` });
      const byName = aUser({ userMetadata: { full_name: `Ada FILTER-${tag.toUpperCase()}` } });
      const anonymousByName = aUser({ email: null, isAnonymous: true, userMetadata: { full_name: `filter-${tag}` } });
      const otherKey = aUser({ userMetadata: { nickname: `filter-${tag}` } });
      for (const user of [byEmail, byName, anonymousByName, otherKey]) await stores.users.insert(user);

      const found = await stores.users.list({ page: 1, perPage: 10, order: "asc", filter: `Filter-${tag}` });
      expect(found.total).toBe(3);
      expect(idsOf(found.users).sort()).toEqual(idsOf([byEmail, byName, anonymousByName]).sort());
    });

    it("takes %, _ and \\ in the filter as text, not as wildcards", async () => {
      const tag = uniqueTag();
      const percent = aUser({ email: `50%off-${tag}@example.com` });
      const underscore = aUser({ email: `a_b-${tag}@example.com` });
      const backslash = aUser({ userMetadata: { full_name: `back\\slash ${tag}` } });
      // What each filter would match instead if its special character were a wildcard, or the backslash an escape.
      const decoys = [
        aUser({ email: `500off-${tag}@example.com` }),
        aUser({ email: `axb-${tag}@example.com` }),
        aUser({ userMetadata: { full_name: `backslash ${tag}` } }),
      ];
      for (const user of [percent, underscore, backslash, ...decoys]) await stores.users.insert(user);
      const matching = async (filter: string) =>
        idsOf((await stores.users.list({ page: 1, perPage: 10, order: "asc", filter })).users);

      expect(await matching(`50%off-${tag}`)).toEqual([percent.id]);
      expect(await matching(`a_b-${tag}`)).toEqual([underscore.id]);
      expect(await matching(`back\\slash ${tag}`)).toEqual([backslash.id]);
      expect(await matching(`%${tag}`)).toEqual([]);
      expect(await matching(`_${tag}`)).toEqual([]);
    });

    it("finds a user by exact email or phone, with its identities oldest first, and combines them with AND", async () => {
      const phone = `+1444${Math.floor(Math.random() * 1e7)}`;
      const user = aUser({ phone });
      const other = aUser({ phone: `+1445${Math.floor(Math.random() * 1e7)}` });
      await stores.users.insert(user);
      await stores.users.insert(other);
      const phoneIdentity: Identity = {
        id: uuid(),
        userId: user.id,
        provider: "phone",
        providerId: user.id,
        identityData: { sub: user.id, phone },
        lastSignInAt: null,
        createdAt: t("12:00:00.000"),
        updatedAt: t("12:00:00.000"),
      };
      await stores.identities.save(phoneIdentity);
      const withIdentities = { ...user, identities: [...user.identities, phoneIdentity] };
      const exactly = (query: { email?: string; phone?: string; filter?: string }) =>
        stores.users.list({ page: 1, perPage: 10, order: "desc", ...query });

      expect(await exactly({ email: user.email! })).toEqual({ users: [withIdentities], total: 1 });
      expect(await exactly({ phone })).toEqual({ users: [withIdentities], total: 1 });
      expect(await exactly({ email: user.email!, phone })).toEqual({ users: [withIdentities], total: 1 });
      expect(await exactly({ email: user.email!, phone: other.phone! })).toEqual({ users: [], total: 0 });
      expect(await exactly({ email: user.email!.slice(1) })).toEqual({ users: [], total: 0 });
      expect(await exactly({ phone, filter: "matches-no-one" })).toEqual({ users: [], total: 0 });
    });

    it("lists one audience at a time", async () => {
      const phone = `+1447${Math.floor(Math.random() * 1e7)}`;
      const elsewhere = { ...aUser({ phone }), aud: "other-audience" };
      await stores.users.insert(elsewhere);
      const listed = (aud: string) => stores.users.list({ page: 1, perPage: 10, order: "desc", phone, aud });
      expect((await listed("other-audience")).users.map((user) => user.id)).toEqual([elsewhere.id]);
      expect(await listed("authenticated")).toEqual({ users: [], total: 0 });
    });

    it("deletes a user with its identities, sessions, refresh tokens, one-time tokens and flows, and frees its addresses", async () => {
      const user = aUser({ phone: `+1446${Math.floor(Math.random() * 1e7)}` });
      await stores.users.insert(user);
      const session = aSession(user.id);
      const token = aRefreshToken(session.id);
      await storeSession(stores, session, token);
      const ott = anOtt(user.id);
      await stores.oneTimeTokens.replace(ott);
      const flow = aFlowState(user.id);
      await stores.flowStates.insert(flow);
      const entry: AuditEntry = {
        id: uuid(),
        action: "login",
        actorId: user.id,
        actorUsername: user.phone!,
        actorName: null,
        traits: {},
        ipAddress: null,
        userAgent: null,
        createdAt: t("16:00:00.000"),
      };
      await stores.auditLog.append(entry);

      expect(await stores.users.delete(user.id)).toBe(true);
      expect(await stores.users.findById(user.id)).toBeNull();
      expect(await stores.users.findWithSession(user.id, session.id)).toBeNull();
      expect(await stores.users.findByEmail(user.email!)).toBeNull();
      expect(await tx.run((s) => s.refreshTokens.lockForRefresh(token.tokenHash))).toBeNull();
      expect(await stores.oneTimeTokens.findByLinkTokenHash(ott.linkTokenHash!)).toBeNull();
      expect(await stores.flowStates.consume(flow.authCodeHash)).toBeNull();
      expect(await stores.users.delete(user.id)).toBe(false);
      // The record of what the user did outlives the user.
      expect((await stores.auditLog.list({ page: 1, perPage: 10, author: user.phone! })).entries).toEqual([entry]);

      // Its email, phone and provider subject can be taken by someone new.
      const successorId = uuid();
      const successor = aUser({
        id: successorId,
        email: user.email,
        phone: user.phone,
        identities: [{ ...user.identities[0]!, id: uuid(), userId: successorId }],
      });
      await stores.users.insert(successor);
      expect(await stores.users.findById(successorId)).toEqual(successor);
    });

    it("answers false when deleting a user that does not exist or an id that is not a uuid", async () => {
      expect(await stores.users.delete(uuid())).toBe(false);
      expect(await stores.users.delete("not-a-uuid")).toBe(false);
      expect(await stores.users.delete("")).toBe(false);
    });
  });
}
