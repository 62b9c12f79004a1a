import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAuthError } from "../../errors.ts";
import type { AuditEntry } from "../../model/audit.ts";
import type { Factor, MfaChallenge } from "../../model/factor.ts";
import type { FlowState } from "../../model/flow-state.ts";
import type { Identity } from "../../model/identity.ts";
import type { OAuthFlow } from "../../model/oauth-flow.ts";
import type { OneTimeToken } from "../../model/one-time-token.ts";
import type { OutboxEntry } from "../../model/outbox.ts";
import type { RefreshToken } from "../../model/refresh-token.ts";
import type { Session } from "../../model/session.ts";
import type { User } from "../../model/user.ts";
import type { Stores, Transactor } from "../../ports/stores.ts";
import { aSession, aUser } from "../builders.ts";
import { failsWith } from "../fails-with.ts";
import { nodeRandom } from "../node-random.ts";

export interface StoreContractSubject {
  readonly stores: Stores;
  readonly tx: Transactor;
  /** What the outbox keeps of a message (sealed content included): the tests' window, no port's business. */
  readonly readOutbox: (id: string) => Promise<OutboxEntry | null>;
  close?(): Promise<void>;
}

const t = (iso: string) => new Date(`2026-03-04T${iso}Z`);
const uuid = () => nodeRandom.uuid();
const digest = () => nodeRandom.token(32);
/** Text no other test writes: what a list filters on, so it sees only its own test's rows in a shared database. */
const uniqueTag = () => uuid().slice(0, 8);
const idsOf = (items: readonly { id: string }[]) => items.map((item) => item.id);
const byCreationThenId = (a: User, b: User) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
/** In id order, so lists answered in no particular order compare. */
const sortedById = <T extends { id: string }>(items: readonly T[]) =>
  [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** An identity at an external provider, with a subject no other test uses. */
function aProviderIdentity(userId: string, overrides: Partial<Identity> = {}): Identity {
  const providerId = overrides.providerId ?? `subject-${uuid()}`;
  return {
    id: uuid(),
    userId,
    provider: "github",
    providerId,
    identityData: { sub: providerId, name: "Zoë", email_verified: true },
    lastSignInAt: t("12:30:00.250"),
    createdAt: t("12:00:00.000"),
    updatedAt: t("12:30:00.250"),
    ...overrides,
  };
}

/** An unverified TOTP factor, unnamed. */
function aFactor(userId: string, overrides: Partial<Factor> = {}): Factor {
  return {
    id: uuid(),
    userId,
    type: "totp",
    friendlyName: null,
    status: "unverified",
    sealedSecret: `sealed-${uuid()}`,
    phone: null,
    lastTotpStep: null,
    lastChallengedAt: null,
    createdAt: t("18:00:00.000"),
    updatedAt: t("18:00:00.000"),
    ...overrides,
  };
}

/** An unverified phone factor, of a number no other test uses. */
function aPhoneFactor(userId: string, overrides: Partial<Factor> = {}): Factor {
  const phone = `+1555${Math.floor(Math.random() * 1e7)}`;
  return aFactor(userId, { type: "phone", sealedSecret: null, phone, ...overrides });
}

function aChallenge(factorId: string, overrides: Partial<MfaChallenge> = {}): MfaChallenge {
  return {
    id: uuid(),
    factorId,
    ip: "203.0.113.7",
    codeDigest: null,
    createdAt: t("18:05:00.000"),
    verifiedAt: null,
    ...overrides,
  };
}

function anOAuthFlow(overrides: Partial<OAuthFlow> = {}): OAuthFlow {
  return {
    id: uuid(),
    provider: "github",
    redirectTo: "https://app.example.com/welcome",
    codeChallenge: null,
    codeChallengeMethod: null,
    inviteUserId: null,
    linkingTargetId: null,
    sealedSecret: null,
    browserBindingHash: null,
    createdAt: t("17:00:00.000"),
    ...overrides,
  };
}

function aRefreshToken(sessionId: string, overrides: Partial<RefreshToken> = {}): RefreshToken {
  return { id: uuid(), sessionId, parentId: null, tokenHash: digest(), createdAt: t("10:00:00.000"), ...overrides };
}

/** Stores a session with the first token of its family, as every sign-in does, and returns that token. */
async function storeSession(
  stores: Stores,
  session: Session,
  token = aRefreshToken(session.id, { id: session.refreshTokenId ?? uuid() }),
) {
  await stores.sessions.open({ ...session, refreshTokenId: token.id }, token);
  return token;
}

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

function anOtt(userId: string, overrides: Partial<OneTimeToken> = {}): OneTimeToken {
  return {
    id: uuid(),
    userId,
    kind: "confirmation",
    relatesTo: "someone@example.com",
    linkTokenHash: digest(),
    otpHash: digest(),
    failedAttempts: 0,
    codeChallenge: null,
    codeChallengeMethod: null,
    passwordHash: null,
    userMetadata: null,
    identityId: null,
    createdAt: t("10:00:00.000"),
    ...overrides,
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject");
}

/**
 * What every implementation of the domain's stores must do. Run against the in-memory stores and against every
 * database adapter, so that the fakes the unit tests rely on cannot drift from the real thing.
 */
export function describeStoreContract(name: string, setup: () => Promise<StoreContractSubject>): void {
  describe(`${name}: store contract`, () => {
    let subject: StoreContractSubject;
    let stores: Stores;
    let tx: Transactor;

    beforeAll(async () => {
      subject = await setup();
      ({ stores, tx } = subject);
    });
    afterAll(async () => {
      await subject.close?.();
    });

    describe("users", () => {
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
        expect(
          isAuthError(await rejection(stores.users.update({ ...other, email: holder.email })), "email_exists"),
        ).toBe(true);
        expect(isAuthError(await rejection(stores.users.update({ ...other, phone })), "phone_exists")).toBe(true);
        expect((await stores.users.findById(other.id))?.email).toBe(other.email);
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
      it("lists users a page at a time in either order, ties broken by id, and counts every match", async () => {
        const tag = `list-${uniqueTag()}`;
        const times = ["10:00:00.000", "10:02:00.000", "10:01:00.000", "10:02:00.000", "10:03:00.000"];
        const listed = times.map((time, i) => aUser({ email: `${tag}-${i}@example.com`, createdAt: t(time) }));
        for (const user of listed) await stores.users.insert(user);
        const ascending = [...listed].sort(byCreationThenId);
        const page = (page: number, order: "asc" | "desc") =>
          stores.users.list({ page, perPage: 2, order, filter: tag });

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
        const flow: FlowState = {
          id: uuid(),
          authCodeHash: digest(),
          userId: user.id,
          codeChallenge: "c".repeat(43),
          codeChallengeMethod: "s256",
          authenticationMethod: "magiclink",
          provider: null,
          pendingLink: null,
          createdAt: t("16:00:00.000"),
        };
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

    describe("identities", () => {
      it("updates the identity with the same provider and provider id instead of adding one", async () => {
        const user = aUser();
        await stores.users.insert(user);
        const identity = user.identities[0]!;
        const updated = {
          ...identity,
          id: uuid(),
          identityData: { ...identity.identityData, email_verified: true },
          updatedAt: t("13:00:00.000"),
        };
        await stores.identities.save(updated);
        const found = await stores.users.findById(user.id);
        expect(found?.identities).toHaveLength(1);
        expect(found?.identities[0]).toEqual({ ...updated, id: identity.id });
      });

      it("deletes every identity of a user and of no one else, freeing their provider subjects", async () => {
        const user = aUser();
        const other = aUser();
        await stores.users.insert(user);
        await stores.users.insert(other);
        const phoneIdentity: Identity = {
          id: uuid(),
          userId: user.id,
          provider: "phone",
          providerId: user.id,
          identityData: { sub: user.id },
          lastSignInAt: null,
          createdAt: t("12:00:00.000"),
          updatedAt: t("12:00:00.000"),
        };
        await stores.identities.save(phoneIdentity);

        await stores.identities.deleteAllOfUser(user.id);
        expect((await stores.users.findById(user.id))?.identities).toEqual([]);
        expect(await stores.users.findById(other.id)).toEqual(other);
        const again = { ...phoneIdentity, id: uuid() };
        await stores.identities.save(again);
        expect((await stores.users.findById(user.id))?.identities).toEqual([again]);
      });

      it("finds an identity by its provider and subject, both matched exactly", async () => {
        const [user, other] = [aUser(), aUser()];
        await stores.users.insert(user);
        await stores.users.insert(other);
        const github = aProviderIdentity(user.id);
        // The same subject at another provider, and another subject at the same provider.
        const gitlab = aProviderIdentity(other.id, { provider: "gitlab", providerId: github.providerId });
        const elsewhere = aProviderIdentity(other.id);
        for (const identity of [github, gitlab, elsewhere]) await stores.identities.save(identity);

        expect(await stores.identities.find("github", github.providerId)).toEqual(github);
        expect(await stores.identities.find("gitlab", github.providerId)).toEqual(gitlab);
        expect(await stores.identities.find("github", elsewhere.providerId)).toEqual(elsewhere);
        expect(await stores.identities.find("email", user.id)).toEqual(user.identities[0]);
        expect(await stores.identities.find("GitHub", github.providerId)).toBeNull();
        expect(await stores.identities.find("github", github.providerId.toUpperCase())).toBeNull();
        expect(await stores.identities.find("github", github.providerId.slice(0, -1))).toBeNull();
        expect(await stores.identities.find("bitbucket", github.providerId)).toBeNull();
        expect(await stores.identities.find("email", github.providerId)).toBeNull();
      });

      it("finds the identities of any provider and user whose data carries one of the emails, in any case", async () => {
        const tag = uniqueTag();
        const [first, second, third] = [
          aUser({ email: `first-${tag}@example.com` }),
          aUser({ email: null }),
          aUser({ email: `third-${tag}@example.com` }),
        ];
        for (const user of [first, second, third]) await stores.users.insert(user);
        const sameAddress = aProviderIdentity(first.id, {
          provider: "google",
          identityData: { sub: "g", email: `first-${tag}@example.com` },
        });
        const mixedCase = aProviderIdentity(second.id, {
          identityData: { sub: "m", email: `Second-${tag}@Example.COM` },
        });
        // Addresses anywhere but in `email` do not count, nor does an identity without one.
        const elsewhereInData = aProviderIdentity(second.id, {
          provider: "gitlab",
          identityData: { sub: "e", email: null, secondary_email: `second-${tag}@example.com` },
        });
        const withoutEmail = aProviderIdentity(third.id, { identityData: { sub: "w", phone: "+15550001234" } });
        for (const identity of [sameAddress, mixedCase, elsewhereInData, withoutEmail]) {
          await stores.identities.save(identity);
        }
        const byEmails = async (emails: readonly string[]) => sortedById(await stores.identities.findByEmails(emails));

        expect(await byEmails([`first-${tag}@example.com`, `second-${tag}@example.com`])).toEqual(
          sortedById([first.identities[0]!, sameAddress, mixedCase]),
        );
        expect(await byEmails([`third-${tag}@example.com`])).toEqual([third.identities[0]]);
        expect(await byEmails([`nobody-${tag}@example.com`])).toEqual([]);
        expect(await stores.identities.findByEmails([])).toEqual([]);
      });

      it("deletes one identity of its user, and nothing of another user's", async () => {
        const [user, other] = [aUser(), aUser()];
        await stores.users.insert(user);
        await stores.users.insert(other);
        const github = aProviderIdentity(user.id);
        await stores.identities.save(github);

        expect(await stores.identities.delete(other.id, github.id)).toBe(false);
        expect(await stores.identities.delete(user.id, other.identities[0]!.id)).toBe(false);
        expect(await stores.identities.delete(user.id, uuid())).toBe(false);
        expect(await stores.identities.find("github", github.providerId)).toEqual(github);
        expect(await stores.users.findById(other.id)).toEqual(other);

        expect(await stores.identities.delete(user.id, github.id)).toBe(true);
        expect(await stores.identities.find("github", github.providerId)).toBeNull();
        expect((await stores.users.findById(user.id))?.identities).toEqual(user.identities);
        expect(await stores.identities.delete(user.id, github.id)).toBe(false);
      });

      it("lets a pending token that carried an identity carry none once the identity is deleted", async () => {
        const user = aUser({ emailConfirmedAt: null });
        await stores.users.insert(user);
        const [github, gitlab] = [aProviderIdentity(user.id), aProviderIdentity(user.id, { provider: "gitlab" })];
        for (const identity of [github, gitlab]) await stores.identities.save(identity);
        const confirmation = anOtt(user.id, { identityId: github.id });
        const recovery = anOtt(user.id, { kind: "recovery", identityId: gitlab.id });
        for (const token of [confirmation, recovery]) await stores.oneTimeTokens.replace(token);
        expect(await stores.oneTimeTokens.findByUser(user.id, "confirmation")).toEqual(confirmation);

        await stores.identities.delete(user.id, github.id);
        expect(await stores.oneTimeTokens.findByUser(user.id, "confirmation")).toEqual({
          ...confirmation,
          identityId: null,
        });
        expect(await stores.oneTimeTokens.findByUser(user.id, "recovery")).toEqual(recovery);
        await stores.identities.deleteAllOfUser(user.id);
        expect(await stores.oneTimeTokens.findByUser(user.id, "recovery")).toEqual({ ...recovery, identityId: null });
      });

      it("refuses an identity another user holds, and changes nothing", async () => {
        const [owner, other] = [aUser(), aUser()];
        await stores.users.insert(owner);
        await stores.users.insert(other);
        const github = aProviderIdentity(owner.id);
        await stores.identities.save(github);

        const taken = {
          ...github,
          id: uuid(),
          userId: other.id,
          identityData: { sub: github.providerId, stolen: true },
          updatedAt: t("13:00:00.000"),
        };
        await failsWith("identity_already_exists", stores.identities.save(taken));
        await failsWith(
          "identity_already_exists",
          stores.identities.save({ ...owner.identities[0]!, userId: other.id }),
        );
        expect(await stores.identities.find("github", github.providerId)).toEqual(github);
        expect((await stores.users.findById(owner.id))?.identities).toEqual([...owner.identities, github]);
        expect(await stores.users.findById(other.id)).toEqual(other);
      });
    });

    describe("factors", () => {
      /** The user's factors as its reads carry them, oldest first. */
      const factorsOf = async (userId: string) => (await stores.users.findById(userId))?.factors ?? [];
      /** In id order: which factors there are, whatever their order. */
      const factorIdsOf = async (userId: string) => idsOf(sortedById(await factorsOf(userId)));

      it("round-trips every field of a factor, and finds it for its user only", async () => {
        const [user, other] = [aUser(), aUser()];
        await stores.users.insert(user);
        await stores.users.insert(other);
        // A time step beyond 32 bits, so that the column is no int4.
        const totp = aFactor(user.id, {
          friendlyName: 'Zoë\'s "work" phone 📱',
          status: "verified",
          lastTotpStep: 5_000_000_123,
          lastChallengedAt: t("18:01:00.125"),
          createdAt: t("18:00:00.250"),
          updatedAt: t("18:01:30.999"),
        });
        const phone = aPhoneFactor(user.id);
        for (const factor of [totp, phone]) await stores.factors.insert(factor);

        expect(await stores.factors.find(user.id, totp.id)).toEqual(totp);
        expect(await stores.factors.find(user.id, phone.id)).toEqual(phone);
        expect(await tx.run((s) => s.factors.find(user.id, totp.id, { forUpdate: true }))).toEqual(totp);
        expect(await stores.factors.find(other.id, totp.id)).toBeNull();
        expect(await tx.run((s) => s.factors.find(other.id, totp.id, { forUpdate: true }))).toBeNull();
        expect(await stores.factors.find(user.id, uuid())).toBeNull();
        expect(await stores.factors.find(user.id, "not-a-uuid")).toBeNull();
        expect(await stores.factors.find("not-a-uuid", totp.id)).toBeNull();
      });

      it("writes a factor's mutable fields on update, and keeps its type, secret and creation as inserted", async () => {
        const user = aUser();
        await stores.users.insert(user);
        const factor = aPhoneFactor(user.id, { sealedSecret: "sealed-at-enrollment" });
        await stores.factors.insert(factor);
        const updated: Factor = {
          ...factor,
          status: "verified",
          friendlyName: "Renamed",
          phone: `+4470${Math.floor(Math.random() * 1e8)}`,
          lastTotpStep: 59_000_001,
          lastChallengedAt: t("18:10:00.500"),
          updatedAt: t("18:11:00.750"),
        };
        await stores.factors.update({ ...updated, type: "totp", sealedSecret: "other", createdAt: t("01:00:00.000") });
        expect(await stores.factors.find(user.id, factor.id)).toEqual(updated);

        const cleared: Factor = { ...updated, friendlyName: null, lastChallengedAt: null, lastTotpStep: null };
        await stores.factors.update(cleared);
        expect(await stores.factors.find(user.id, factor.id)).toEqual(cleared);
      });

      it("refuses a user a second factor of a friendly name, trimmed, and allows unnamed factors and other users'", async () => {
        const [user, other] = [aUser(), aUser()];
        await stores.users.insert(user);
        await stores.users.insert(other);
        const laptop = aFactor(user.id, { friendlyName: "Laptop" });
        await stores.factors.insert(laptop);

        const same = aFactor(user.id, { friendlyName: "Laptop" });
        const error = await failsWith("mfa_factor_name_conflict", stores.factors.insert(same));
        expect(error.message).toBe('A factor with the friendly name "Laptop" for this user already exists');
        const padded = aPhoneFactor(user.id, { friendlyName: "  Laptop  " });
        await failsWith("mfa_factor_name_conflict", stores.factors.insert(padded));
        expect(await factorIdsOf(user.id)).toEqual([laptop.id]);

        // Names compare as they are, but for the spaces around them; no name, or an empty one, is no name.
        const allowed = [
          aFactor(user.id, { friendlyName: "laptop" }),
          aFactor(user.id, { friendlyName: "Laptop 2" }),
          aFactor(user.id, { friendlyName: null }),
          aFactor(user.id, { friendlyName: null }),
          aFactor(user.id, { friendlyName: "" }),
          aFactor(user.id, { friendlyName: "   " }),
        ];
        for (const factor of allowed) await stores.factors.insert(factor);
        const othersLaptop = aFactor(other.id, { friendlyName: "Laptop" });
        await stores.factors.insert(othersLaptop);
        expect(await factorIdsOf(user.id)).toEqual(idsOf(sortedById([laptop, ...allowed])));
        expect(await factorIdsOf(other.id)).toEqual([othersLaptop.id]);

        // Renaming to a name taken is refused too, and changes nothing.
        const renamed = allowed[2]!;
        await failsWith("mfa_factor_name_conflict", stores.factors.update({ ...renamed, friendlyName: " Laptop" }));
        expect(await stores.factors.find(user.id, renamed.id)).toEqual(renamed);
      });

      it("refuses a user a second verified factor of a phone number, and allows unverified ones and other users'", async () => {
        const [user, other] = [aUser(), aUser()];
        await stores.users.insert(user);
        await stores.users.insert(other);
        const verified = aPhoneFactor(user.id, { status: "verified" });
        await stores.factors.insert(verified);

        const again = aPhoneFactor(user.id, { phone: verified.phone, status: "verified" });
        const error = await failsWith("mfa_verified_factor_exists", stores.factors.insert(again));
        expect(error.message).toBe("A verified phone factor already exists, unenroll the existing factor to continue");
        expect(await stores.factors.find(user.id, again.id)).toBeNull();

        // Enrolling the number again is allowed; verifying that enrollment is not, while the other is verified.
        const pending = aPhoneFactor(user.id, { phone: verified.phone });
        const anotherNumber = aPhoneFactor(user.id, { status: "verified" });
        const othersVerified = aPhoneFactor(other.id, { phone: verified.phone, status: "verified" });
        for (const factor of [pending, anotherNumber, othersVerified]) await stores.factors.insert(factor);
        await failsWith("mfa_verified_factor_exists", stores.factors.update({ ...pending, status: "verified" }));
        expect(await stores.factors.find(user.id, pending.id)).toEqual(pending);
        expect(await factorIdsOf(user.id)).toEqual(idsOf(sortedById([verified, pending, anotherNumber])));

        // Once the verified one is gone, the number is free to verify.
        expect(await stores.factors.delete(user.id, verified.id)).toBe(true);
        await stores.factors.update({ ...pending, status: "verified" });
        expect((await stores.factors.find(user.id, pending.id))?.status).toBe("verified");
      });

      it("deletes a factor of its user with its challenges, and says whether it did", async () => {
        const [user, other] = [aUser(), aUser()];
        await stores.users.insert(user);
        await stores.users.insert(other);
        const [factor, kept] = [aFactor(user.id), aFactor(user.id)];
        for (const each of [factor, kept]) await stores.factors.insert(each);
        const challenge = aChallenge(factor.id);
        const keptChallenge = aChallenge(kept.id);
        for (const each of [challenge, keptChallenge]) await stores.factors.insertChallenge(each);

        expect(await stores.factors.delete(other.id, factor.id)).toBe(false);
        expect(await stores.factors.delete(user.id, uuid())).toBe(false);
        expect(await stores.factors.delete(user.id, "not-a-uuid")).toBe(false);
        expect(await stores.factors.find(user.id, factor.id)).toEqual(factor);

        expect(await stores.factors.delete(user.id, factor.id)).toBe(true);
        expect(await stores.factors.find(user.id, factor.id)).toBeNull();
        expect(await tx.run((s) => s.factors.lockChallenge(factor.id, challenge.id))).toBeNull();
        expect(await stores.factors.delete(user.id, factor.id)).toBe(false);
        expect(await factorIdsOf(user.id)).toEqual([kept.id]);
        expect(await tx.run((s) => s.factors.lockChallenge(kept.id, keptChallenge.id))).toEqual(keptChallenge);
      });

      it("deletes every factor of a user with their challenges, and no other user's", async () => {
        const [user, other] = [aUser(), aUser()];
        await stores.users.insert(user);
        await stores.users.insert(other);
        const [totp, phone, theirs] = [
          aFactor(user.id, { status: "verified" }),
          aPhoneFactor(user.id),
          aFactor(other.id),
        ];
        for (const each of [totp, phone, theirs]) await stores.factors.insert(each);
        const [challenge, theirChallenge] = [aChallenge(totp.id), aChallenge(theirs.id)];
        for (const each of [challenge, theirChallenge]) await stores.factors.insertChallenge(each);

        await stores.factors.deleteAllOfUser(user.id);
        expect(await factorIdsOf(user.id)).toEqual([]);
        expect(await tx.run((s) => s.factors.lockChallenge(totp.id, challenge.id))).toBeNull();
        expect(await factorIdsOf(other.id)).toEqual([theirs.id]);
        expect(await tx.run((s) => s.factors.lockChallenge(theirs.id, theirChallenge.id))).toEqual(theirChallenge);
        await stores.factors.deleteAllOfUser("not-a-uuid");
      });

      it("deletes the unverified factors of a user that match every condition given, and never a verified one", async () => {
        const [user, other] = [aUser(), aUser()];
        await stores.users.insert(user);
        await stores.users.insert(other);
        const number = `+3375${Math.floor(Math.random() * 1e7)}`;
        const idleTotp = aFactor(user.id, { createdAt: t("10:00:00.000") });
        // Created long ago, but challenged since: idle from its last challenge.
        const challengedTotp = aFactor(user.id, {
          createdAt: t("09:00:00.000"),
          lastChallengedAt: t("12:00:00.000"),
        });
        const phoneOfNumber = aPhoneFactor(user.id, { phone: number, createdAt: t("10:00:00.000") });
        const otherPhone = aPhoneFactor(user.id, { createdAt: t("13:00:00.000") });
        const verifiedTotp = aFactor(user.id, { status: "verified", createdAt: t("08:00:00.000") });
        const verifiedPhone = aPhoneFactor(user.id, {
          phone: number,
          status: "verified",
          createdAt: t("08:00:00.000"),
        });
        const othersFactor = aPhoneFactor(other.id, { phone: number, createdAt: t("08:00:00.000") });
        const verifiedOnes = [verifiedTotp, verifiedPhone];
        for (const factor of [idleTotp, challengedTotp, phoneOfNumber, otherPhone, ...verifiedOnes, othersFactor]) {
          await stores.factors.insert(factor);
        }
        const left = (...factors: Factor[]) => idsOf(sortedById([...factors, ...verifiedOnes]));

        await stores.factors.deleteUnverified(user.id, { type: "totp", phone: number });
        await stores.factors.deleteUnverified(user.id, { type: "phone", phone: "+15550000000" });
        expect(await factorIdsOf(user.id)).toEqual(left(idleTotp, challengedTotp, phoneOfNumber, otherPhone));
        await stores.factors.deleteUnverified(user.id, { type: "phone", phone: number });
        expect(await factorIdsOf(user.id)).toEqual(left(idleTotp, challengedTotp, otherPhone));

        // Idle since before the instant: last challenged, or else created, strictly before it.
        await stores.factors.deleteUnverified(user.id, { idleBefore: t("10:00:00.000") });
        expect(await factorIdsOf(user.id)).toEqual(left(idleTotp, challengedTotp, otherPhone));
        await stores.factors.deleteUnverified(user.id, { idleBefore: t("12:00:00.000") });
        expect(await factorIdsOf(user.id)).toEqual(left(challengedTotp, otherPhone));
        await stores.factors.deleteUnverified(user.id, { type: "phone", idleBefore: t("12:00:00.001") });
        expect(await factorIdsOf(user.id)).toEqual(left(challengedTotp, otherPhone));

        const newer = aFactor(user.id, { createdAt: t("14:00:00.000") });
        await stores.factors.insert(newer);
        await stores.factors.deleteUnverified(user.id, { type: "totp", except: challengedTotp.id });
        expect(await factorIdsOf(user.id)).toEqual(left(challengedTotp, otherPhone));
        await stores.factors.deleteUnverified(user.id, { idleBefore: t("23:00:00.000"), except: otherPhone.id });
        expect(await factorIdsOf(user.id)).toEqual(left(otherPhone));
        await stores.factors.deleteUnverified(user.id, {});
        expect(await factorIdsOf(user.id)).toEqual(left());
        expect(await factorIdsOf(other.id)).toEqual([othersFactor.id]);
      });

      it("keeps a factor's challenges, hands one out by its factor's id only, and records its verification", async () => {
        const user = aUser();
        await stores.users.insert(user);
        const [factor, sibling] = [aPhoneFactor(user.id), aFactor(user.id)];
        for (const each of [factor, sibling]) await stores.factors.insert(each);
        const texted = aChallenge(factor.id, { ip: "2001:db8::7", codeDigest: digest(), createdAt: t("18:05:00.125") });
        const bare = aChallenge(factor.id, { ip: null });
        for (const each of [texted, bare]) await stores.factors.insertChallenge(each);
        const lock = (factorId: string, challengeId: string) =>
          tx.run((s) => s.factors.lockChallenge(factorId, challengeId));

        expect(await lock(factor.id, texted.id)).toEqual(texted);
        expect(await lock(factor.id, bare.id)).toEqual(bare);
        expect(await lock(sibling.id, texted.id)).toBeNull();
        expect(await lock(factor.id, uuid())).toBeNull();
        expect(await lock(factor.id, "not-a-uuid")).toBeNull();

        await stores.factors.markChallengeVerified(texted.id, t("18:06:00.500"));
        expect(await lock(factor.id, texted.id)).toEqual({ ...texted, verifiedAt: t("18:06:00.500") });
        await stores.factors.deleteChallenge(texted.id);
        expect(await lock(factor.id, texted.id)).toBeNull();
        expect(await lock(factor.id, bare.id)).toEqual(bare);
      });

      it("lets one transaction at a time hold a challenge, and shows the next one what the first wrote", async () => {
        const user = aUser();
        await stores.users.insert(user);
        const factor = aFactor(user.id);
        await stores.factors.insert(factor);
        const challenge = aChallenge(factor.id);
        await stores.factors.insertChallenge(challenge);
        let signalLocked!: () => void;
        const locked = new Promise<void>((resolve) => (signalLocked = resolve));
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));

        const first = tx.run(async (s) => {
          await s.factors.lockChallenge(factor.id, challenge.id);
          signalLocked();
          await released;
          await s.factors.markChallengeVerified(challenge.id, t("18:07:00.000"));
        });
        await locked;
        let secondDone = false;
        const second = tx.run(async (s) => {
          const found = await s.factors.lockChallenge(factor.id, challenge.id);
          secondDone = true;
          return found;
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(secondDone).toBe(false);
        release();
        await first;
        expect((await second)?.verifiedAt).toEqual(t("18:07:00.000"));
      });

      it("lets one transaction at a time hold a factor it found for update, and shows the next one what the first wrote", async () => {
        const user = aUser();
        await stores.users.insert(user);
        const factor = aFactor(user.id);
        await stores.factors.insert(factor);
        let signalLocked!: () => void;
        const locked = new Promise<void>((resolve) => (signalLocked = resolve));
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));

        const first = tx.run(async (s) => {
          await s.factors.find(user.id, factor.id, { forUpdate: true });
          signalLocked();
          await released;
          await s.factors.update({ ...factor, lastTotpStep: 7 });
        });
        await locked;
        let secondDone = false;
        const second = tx.run(async (s) => {
          const found = await s.factors.find(user.id, factor.id, { forUpdate: true });
          secondDone = true;
          return found;
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(secondDone).toBe(false);
        release();
        await first;
        expect((await second)?.lastTotpStep).toBe(7);
      });

      it("reads users with their factors, oldest first, ties broken by id", async () => {
        const phone = `+4916${Math.floor(Math.random() * 1e8)}`;
        const [user, other] = [aUser({ phone }), aUser()];
        await stores.users.insert(user);
        await stores.users.insert(other);
        const factors = [
          aFactor(user.id, { friendlyName: "second", createdAt: t("10:00:00.000") }),
          aPhoneFactor(user.id, { status: "verified", createdAt: t("09:00:00.000") }),
          aFactor(user.id, { friendlyName: "tie a", createdAt: t("11:00:00.000") }),
          aFactor(user.id, { friendlyName: "tie b", createdAt: t("11:00:00.000") }),
        ];
        for (const factor of [...factors, aFactor(other.id)]) await stores.factors.insert(factor);
        const oldestFirst = [...factors].sort(
          (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
        );
        const withFactors = { ...user, factors: oldestFirst };
        const session = aSession(user.id);
        const token = await storeSession(stores, session);

        expect(await stores.users.findById(user.id)).toEqual(withFactors);
        expect(await tx.run((s) => s.users.findById(user.id, { forUpdate: true }))).toEqual(withFactors);
        expect(await stores.users.findByEmail(user.email!)).toEqual(withFactors);
        expect(await stores.users.findByPhone(phone)).toEqual(withFactors);
        expect((await stores.users.findWithSession(user.id, session.id))?.user).toEqual(withFactors);
        expect((await stores.refreshTokens.findForRefresh(token.tokenHash))?.user).toEqual(withFactors);
        expect((await tx.run((s) => s.refreshTokens.lockForRefresh(token.tokenHash)))?.user).toEqual(withFactors);
        const listed = await stores.users.list({ page: 1, perPage: 10, order: "asc", phone });
        expect(listed.users).toEqual([withFactors]);
      });

      it("deletes a user's factors and their challenges with the user", async () => {
        const user = aUser();
        await stores.users.insert(user);
        const factor = aPhoneFactor(user.id, { status: "verified" });
        await stores.factors.insert(factor);
        const challenge = aChallenge(factor.id);
        await stores.factors.insertChallenge(challenge);

        expect(await stores.users.delete(user.id)).toBe(true);
        expect(await stores.factors.find(user.id, factor.id)).toBeNull();
        expect(await tx.run((s) => s.factors.lockChallenge(factor.id, challenge.id))).toBeNull();
        // Nothing of them is left behind: a user of the same id starts without factors, and their ids are free.
        await stores.users.insert(user);
        expect(await factorsOf(user.id)).toEqual([]);
        await stores.factors.insert(factor);
        await stores.factors.insertChallenge(challenge);
        expect(await factorsOf(user.id)).toEqual([factor]);
      });
    });

    describe("sessions and refresh tokens", () => {
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
          await stores.sessions.rotate(
            { ...stored, refreshTokenId: child.id, previousRefreshTokenId: parent.id },
            child,
          ),
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
    });

    describe("used id_tokens", () => {
      it("remembers a digest until it expires, refusing it meanwhile, and forgets the expired ones", async () => {
        const [first, second] = [digest(), digest()];
        expect(await stores.usedIdTokens.remember(first, t("11:00:00.000"), t("10:00:00.000"))).toBe(true);
        expect(await stores.usedIdTokens.remember(first, t("11:00:00.000"), t("10:30:00.000"))).toBe(false);
        expect(await stores.usedIdTokens.remember(second, t("10:45:00.000"), t("10:30:00.000"))).toBe(true);
        // Once expired, a digest is forgotten: remembering it again (it could not verify by then) is no replay.
        expect(await stores.usedIdTokens.remember(first, t("13:00:00.000"), t("11:00:00.001"))).toBe(true);
        expect(await stores.usedIdTokens.remember(second, t("13:00:00.000"), t("11:00:00.002"))).toBe(true);
      });

      it("gives one of two concurrent transactions the digest", async () => {
        const one = digest();
        const remember = () => tx.run((s) => s.usedIdTokens.remember(one, t("11:00:00.000"), t("10:00:00.000")));
        expect((await Promise.all([remember(), remember()])).sort()).toEqual([false, true]);
      });
    });

    describe("one-time tokens", () => {
      it("keeps one pending token per user and kind", async () => {
        const user = aUser();
        await stores.users.insert(user);
        const first = anOtt(user.id);
        const second = anOtt(user.id, { linkTokenHash: null, failedAttempts: 2, createdAt: t("10:05:00.000") });
        const recovery = anOtt(user.id, { kind: "recovery" });
        await stores.oneTimeTokens.replace(first);
        await stores.oneTimeTokens.replace(recovery);
        await stores.oneTimeTokens.replace(second);
        expect(await stores.oneTimeTokens.findByUser(user.id, "confirmation")).toEqual(second);
        expect(await stores.oneTimeTokens.findByUser(user.id, "recovery")).toEqual(recovery);
        expect(await stores.oneTimeTokens.findByUser(user.id, "reauthentication")).toBeNull();

        await stores.oneTimeTokens.deleteAllOfUser(user.id);
        expect(await stores.oneTimeTokens.findByUser(user.id, "confirmation")).toBeNull();
        expect(await stores.oneTimeTokens.findByUser(user.id, "recovery")).toBeNull();
      });

      it("finds a token by the digest of its link, keeping its PKCE challenge and chosen password", async () => {
        const user = aUser();
        await stores.users.insert(user);
        const token = anOtt(user.id, {
          kind: "magic_link",
          codeChallenge: "a".repeat(43),
          codeChallengeMethod: "s256",
          passwordHash: "$argon2id$chosen",
          userMetadata: { name: "Zoë", nested: { tags: ["a"] } },
        });
        await stores.oneTimeTokens.replace(token);
        expect(await stores.oneTimeTokens.findByLinkTokenHash(token.linkTokenHash!)).toEqual(token);
        expect(await stores.oneTimeTokens.findByLinkTokenHash(digest())).toBeNull();
      });

      it("finds the pending tokens of some kinds sent to an address, for every user it is pending for", async () => {
        const [first, second] = [aUser(), aUser()];
        await stores.users.insert(first);
        await stores.users.insert(second);
        const address = `shared-${uuid().slice(0, 8)}@example.com`;
        const ofFirst = anOtt(first.id, { kind: "email_change_new", relatesTo: address });
        const ofSecond = anOtt(second.id, { kind: "email_change_new", relatesTo: address });
        const otherKind = anOtt(first.id, { kind: "recovery", relatesTo: address });
        for (const token of [ofFirst, ofSecond, otherKind]) await stores.oneTimeTokens.replace(token);
        const found = await stores.oneTimeTokens.findByAddress(address, ["email_change_new", "email_change_current"]);
        expect(found.map((token) => token.id).sort()).toEqual([ofFirst.id, ofSecond.id].sort());
        expect(await stores.oneTimeTokens.findByAddress("nobody@example.com", ["recovery"])).toEqual([]);
      });

      it("spends a token's code attempts up to a maximum, and deletes one token alone", async () => {
        const user = aUser();
        await stores.users.insert(user);
        const kept = anOtt(user.id, { kind: "recovery" });
        const guessed = anOtt(user.id, { kind: "confirmation" });
        await stores.oneTimeTokens.replace(kept);
        await stores.oneTimeTokens.replace(guessed);
        expect(await stores.oneTimeTokens.takeCodeAttempt(guessed.id, 2)).toBe(true);
        expect(await stores.oneTimeTokens.takeCodeAttempt(guessed.id, 2)).toBe(true);
        expect(await stores.oneTimeTokens.takeCodeAttempt(guessed.id, 2)).toBe(false);
        expect((await stores.oneTimeTokens.findByUser(user.id, "confirmation"))?.failedAttempts).toBe(2);
        expect(await stores.oneTimeTokens.takeCodeAttempt(guessed.id, 3)).toBe(true);
        expect(
          await Promise.all([stores.oneTimeTokens.delete(guessed.id), stores.oneTimeTokens.delete(guessed.id)]),
        ).toEqual(expect.arrayContaining([true, false]));
        expect(await stores.oneTimeTokens.findByUser(user.id, "confirmation")).toBeNull();
        expect(await stores.oneTimeTokens.takeCodeAttempt(guessed.id, 5)).toBe(false);
        expect(await stores.oneTimeTokens.findByUser(user.id, "recovery")).toEqual(kept);
      });
    });

    describe("flow states", () => {
      it("hands a flow out once, by the digest of its code", async () => {
        const user = aUser();
        await stores.users.insert(user);
        const flow: FlowState = {
          id: uuid(),
          authCodeHash: digest(),
          userId: user.id,
          codeChallenge: "b".repeat(43),
          codeChallengeMethod: "plain",
          authenticationMethod: "magiclink",
          provider: null,
          pendingLink: null,
          createdAt: t("16:00:00.123"),
        };
        await stores.flowStates.insert(flow);
        expect(await stores.flowStates.consume(digest())).toBeNull();
        const consumed = await Promise.all([
          stores.flowStates.consume(flow.authCodeHash),
          stores.flowStates.consume(flow.authCodeHash),
        ]);
        expect(consumed.filter((found) => found !== null)).toEqual([flow]);
      });

      it("keeps the provider of an OAuth sign-in with its sealed tokens, or none", async () => {
        const user = aUser();
        await stores.users.insert(user);
        const aFlow = (provider: FlowState["provider"]): FlowState => ({
          id: uuid(),
          authCodeHash: digest(),
          userId: user.id,
          codeChallenge: "d".repeat(43),
          codeChallengeMethod: "s256",
          authenticationMethod: "oauth",
          provider,
          pendingLink: null,
          createdAt: t("16:30:00.789"),
        });
        const flows = [
          aFlow({ name: "github", sealedAccessToken: "sealed-access", sealedRefreshToken: "sealed-refresh" }),
          aFlow({ name: "google", sealedAccessToken: "sealed-access-only", sealedRefreshToken: null }),
          aFlow(null),
        ];
        for (const flow of flows) await stores.flowStates.insert(flow);
        for (const flow of flows) expect(await stores.flowStates.consume(flow.authCodeHash)).toEqual(flow);
      });

      it("keeps a linking flow's identity, its profile as it came", async () => {
        const user = aUser();
        await stores.users.insert(user);
        const profile = {
          subject: "gh-4242",
          claims: { iss: "https://github.example", sub: "gh-4242", name: "Zoë", custom_claims: { teams: ["a", "b"] } },
          emails: [
            { address: "zoe@example.com", verified: true, primary: true },
            { address: "Zoe@Work.Example", verified: false, primary: false },
          ],
        };
        const flow: FlowState = {
          id: uuid(),
          authCodeHash: digest(),
          userId: user.id,
          codeChallenge: "f".repeat(43),
          codeChallengeMethod: "s256",
          authenticationMethod: "oauth",
          provider: { name: "github", sealedAccessToken: "sealed-access", sealedRefreshToken: null },
          pendingLink: { provider: "github", profile },
          createdAt: t("16:40:00.001"),
        };
        await stores.flowStates.insert(flow);
        expect(await stores.flowStates.consume(flow.authCodeHash)).toEqual(flow);
      });
    });

    describe("oauth flows", () => {
      it("takes a flow once, exactly as it was inserted", async () => {
        const [linking, invited] = [aUser(), aUser()];
        await stores.users.insert(linking);
        await stores.users.insert(invited);
        const full = anOAuthFlow({
          provider: "gitlab",
          redirectTo: "https://app.example.com/after?next=%2Fhome&x=1#frag",
          codeChallenge: "e".repeat(43),
          codeChallengeMethod: "s256",
          inviteUserId: invited.id,
          linkingTargetId: linking.id,
          sealedSecret: `sealed-${uuid()}`,
          browserBindingHash: digest(),
          createdAt: t("17:00:00.456"),
        });
        const bare = anOAuthFlow({ createdAt: t("17:00:01.001") });
        const plain = anOAuthFlow({ codeChallenge: "f".repeat(43), codeChallengeMethod: "plain" });
        for (const flow of [full, bare, plain]) await stores.oauthFlows.insert(flow);

        expect(await stores.oauthFlows.take(uuid())).toBeNull();
        for (const flow of [full, bare, plain]) {
          expect(await stores.oauthFlows.take(flow.id)).toEqual(flow);
          expect(await stores.oauthFlows.take(flow.id)).toBeNull();
        }
      });

      it("hands a flow to one of two takes at once", async () => {
        const flow = anOAuthFlow({ sealedSecret: "sealed-verifier" });
        await stores.oauthFlows.insert(flow);
        const taken = await Promise.all([stores.oauthFlows.take(flow.id), stores.oauthFlows.take(flow.id)]);
        expect(taken.filter((found) => found !== null)).toEqual([flow]);
      });

      it("deletes the flows linking to or inviting a user with that user, and no other", async () => {
        const [linking, invited, bystander] = [aUser(), aUser(), aUser()];
        for (const user of [linking, invited, bystander]) await stores.users.insert(user);
        const linkingFlow = anOAuthFlow({ linkingTargetId: linking.id });
        const invitingFlow = anOAuthFlow({ inviteUserId: invited.id });
        const bothFlow = anOAuthFlow({ linkingTargetId: bystander.id, inviteUserId: invited.id });
        const bystandersFlow = anOAuthFlow({ linkingTargetId: bystander.id });
        const nobodysFlow = anOAuthFlow();
        const flows = [linkingFlow, invitingFlow, bothFlow, bystandersFlow, nobodysFlow];
        for (const flow of flows) await stores.oauthFlows.insert(flow);

        expect(await stores.users.delete(linking.id)).toBe(true);
        expect(await stores.users.delete(invited.id)).toBe(true);
        expect(await stores.oauthFlows.take(linkingFlow.id)).toBeNull();
        expect(await stores.oauthFlows.take(invitingFlow.id)).toBeNull();
        expect(await stores.oauthFlows.take(bothFlow.id)).toBeNull();
        expect(await stores.oauthFlows.take(bystandersFlow.id)).toEqual(bystandersFlow);
        expect(await stores.oauthFlows.take(nobodysFlow.id)).toEqual(nobodysFlow);
      });

      it("removes, as it inserts a flow, the flows begun more than a day before that one", async () => {
        // Years from the other tests' times, and from now: a day is counted back from the new flow, not the clock.
        const inserted = new Date("2032-06-01T12:00:00.000Z");
        const before = (ms: number) => new Date(inserted.getTime() - ms);
        const day = 24 * 60 * 60 * 1000;
        const abandoned = anOAuthFlow({ createdAt: before(day + 1) });
        const aDayOld = anOAuthFlow({ createdAt: before(day) });
        const recent = anOAuthFlow({ createdAt: before(60 * 60 * 1000) });
        const later = anOAuthFlow({ createdAt: new Date(inserted.getTime() + 60 * 1000) });
        // Newest first, so that no insert here removes a flow inserted before it.
        for (const flow of [later, recent, aDayOld, abandoned]) await stores.oauthFlows.insert(flow);
        expect(await stores.oauthFlows.take(abandoned.id)).toEqual(abandoned);
        await stores.oauthFlows.insert(abandoned);

        const fresh = anOAuthFlow({ createdAt: inserted });
        await stores.oauthFlows.insert(fresh);
        expect(await stores.oauthFlows.take(abandoned.id)).toBeNull();
        for (const kept of [aDayOld, recent, later, fresh]) expect(await stores.oauthFlows.take(kept.id)).toEqual(kept);
      });
    });

    describe("audit log", () => {
      it("keeps entries exactly, lists them newest first a page at a time, and rolls back with the change", async () => {
        const actorId = uuid();
        const entry = (at: string, action: AuditEntry["action"]): AuditEntry => ({
          id: uuid(),
          action,
          actorId,
          actorUsername: "+15550101010",
          actorName: "Zoë",
          traits: { provider: "email", nested: { deep: [1, "two"] } },
          ipAddress: "2001:db8::1",
          userAgent: "Mozilla/5.0",
          createdAt: t(at),
        });
        // Far in the future, so that they are the newest entries whatever other tests of this suite wrote.
        const [older, newer, newest] = [
          entry("00:00:01.000", "login"),
          entry("00:00:02.000", "token_refreshed"),
          entry("00:00:03.000", "logout"),
        ].map((e) => ({ ...e, createdAt: new Date(e.createdAt.getTime() + 10 * 365 * 86_400_000) }));
        await stores.auditLog.append(older!);
        await stores.auditLog.append(newest!);
        await stores.auditLog.append({ ...newer!, actorName: null, ipAddress: null, userAgent: null, traits: {} });
        expect((await stores.auditLog.list({ page: 1, perPage: 2 })).entries).toEqual([
          newest,
          { ...newer!, actorName: null, ipAddress: null, userAgent: null, traits: {} },
        ]);
        expect((await stores.auditLog.list({ page: 2, perPage: 2 })).entries[0]).toEqual(older);

        const rolledBack = entry("00:00:04.000", "login");
        await rejection(
          tx.run(async (s) => {
            await s.auditLog.append({
              ...rolledBack,
              createdAt: new Date(rolledBack.createdAt.getTime() + 10 * 365 * 86_400_000),
            });
            throw new Error("boom");
          }),
        );
        expect((await stores.auditLog.list({ page: 1, perPage: 1 })).entries[0]?.id).toBe(newest!.id);
      });

      const anEntry = (overrides: Partial<AuditEntry>): AuditEntry => ({
        id: uuid(),
        action: "login",
        actorId: uuid(),
        actorUsername: "someone@example.com",
        actorName: null,
        traits: {},
        ipAddress: null,
        userAgent: null,
        createdAt: t("11:00:00.000"),
        ...overrides,
      });

      it("lists the entries of an author a page at a time, newest first, and counts them all", async () => {
        const tag = uniqueTag();
        const username = `author-${tag}@example.com`;
        const first = anEntry({ actorUsername: username, createdAt: t("11:00:00.000") });
        // Written in one instant: the one written last lists first.
        const second = anEntry({ actorUsername: username, action: "logout", createdAt: t("11:01:00.000") });
        const third = anEntry({ actorUsername: username, action: "token_refreshed", createdAt: t("11:01:00.000") });
        const byName = anEntry({
          actorUsername: "+15550001234",
          actorName: `Grace ${tag.toUpperCase()}`,
          createdAt: t("11:02:00.000"),
        });
        const last = anEntry({ actorUsername: username, createdAt: t("11:03:00.000") });
        for (const entry of [first, second, third, byName, last, anEntry({})]) await stores.auditLog.append(entry);
        const page = (page: number, author = tag) => stores.auditLog.list({ page, perPage: 2, author });

        expect(await page(1)).toEqual({ entries: [last, byName], total: 5 });
        expect(await page(2)).toEqual({ entries: [third, second], total: 5 });
        expect(await page(3)).toEqual({ entries: [first], total: 5 });
        expect(await page(4)).toEqual({ entries: [], total: 5 });
        expect((await page(1, `AUTHOR-${tag}`)).total).toBe(4);
      });

      it("takes % and _ in the author as text, not as wildcards", async () => {
        const tag = uniqueTag();
        const literal = anEntry({ actorName: `100%_${tag}` });
        const decoy = anEntry({ actorName: `100ab${tag}` });
        for (const entry of [literal, decoy]) await stores.auditLog.append(entry);
        const matching = async (author: string) =>
          idsOf((await stores.auditLog.list({ page: 1, perPage: 10, author })).entries);

        expect(await matching(`%_${tag}`)).toEqual([literal.id]);
        expect(await matching(`_${tag}`)).toEqual([literal.id]);
        expect(await matching(`0%${tag}`)).toEqual([]);
      });

      it("lists only the entries with one of the actions asked for, and none for an empty list", async () => {
        const author = `actions-${uniqueTag()}`;
        const [login, logout, refreshed, again] = [
          anEntry({ actorUsername: author, action: "login", createdAt: t("11:10:00.000") }),
          anEntry({ actorUsername: author, action: "logout", createdAt: t("11:11:00.000") }),
          anEntry({ actorUsername: author, action: "token_refreshed", createdAt: t("11:12:00.000") }),
          anEntry({ actorUsername: author, action: "login", createdAt: t("11:13:00.000") }),
        ];
        for (const entry of [login, logout, refreshed, again]) await stores.auditLog.append(entry);
        const list = (actions: readonly AuditEntry["action"][]) =>
          stores.auditLog.list({ page: 1, perPage: 10, author, actions });

        expect(await list(["login", "logout"])).toEqual({ entries: [again, logout, login], total: 3 });
        expect(await list(["user_invited"])).toEqual({ entries: [], total: 0 });
        expect(await list([])).toEqual({ entries: [], total: 0 });
        expect(await stores.auditLog.list({ page: 1, perPage: 10, actions: [] })).toEqual({ entries: [], total: 0 });
      });
    });

    describe("outbox", () => {
      // Far from the other tests' times, so that only this test's messages are ever due at these instants.
      const at = (minute: number) => new Date(Date.UTC(2031, 0, 1, 0, minute));
      const anEntry = (overrides: Partial<OutboxEntry> = {}): OutboxEntry => ({
        id: uuid(),
        channel: "email",
        sealedMessage: `sealed-${uuid()}`,
        createdAt: at(0),
        nextAttemptAt: at(0),
        expiresAt: at(600),
        attempts: 0,
        deliveredAt: null,
        lastError: null,
        ...overrides,
      });
      let minute = 1000;
      /** A stretch of time of this test's own; what earlier tests left due is delivered first. */
      const window = async () => {
        minute += 100;
        const claim = uuid();
        for (const left of await stores.outbox.claimDue({
          now: at(minute - 1),
          limit: 1000,
          leaseUntil: at(minute - 1),
          claim,
        })) {
          await stores.outbox.markDelivered({ id: left.id, claim }, at(minute - 1));
        }
        return minute;
      };

      it("keeps a queued message, and nothing of one whose transaction rolled back", async () => {
        const kept = anEntry({ channel: "sms" });
        await tx.run((s) => s.outbox.enqueue(kept));
        expect(await subject.readOutbox(kept.id)).toEqual(kept);
        const dropped = anEntry();
        await rejection(
          tx.run(async (s) => {
            await s.outbox.enqueue(dropped);
            throw new Error("boom");
          }),
        );
        expect(await subject.readOutbox(dropped.id)).toBeNull();
      });

      it("claims what is due, oldest first, up to the limit, and leases it", async () => {
        const start = await window();
        const [first, second, later] = [
          anEntry({ nextAttemptAt: at(start) }),
          anEntry({ nextAttemptAt: at(start + 1) }),
          anEntry({ nextAttemptAt: at(start + 50) }),
        ];
        for (const entry of [second, later, first]) await stores.outbox.enqueue(entry);

        const claimed = await stores.outbox.claimDue({
          now: at(start + 2),
          limit: 10,
          leaseUntil: at(start + 5),
          claim: uuid(),
        });
        expect(claimed.map((entry) => entry.id)).toEqual([first.id, second.id]);
        expect(claimed[0]).toEqual(first);
        // Leased: no one else gets them until the lease runs out.
        expect(
          await stores.outbox.claimDue({ now: at(start + 3), limit: 10, leaseUntil: at(start + 6), claim: uuid() }),
        ).toEqual([]);
        const afterLease = await stores.outbox.claimDue({
          now: at(start + 5),
          limit: 1,
          leaseUntil: at(start + 8),
          claim: uuid(),
        });
        expect(afterLease.map((entry) => entry.id)).toEqual([first.id]);
      });

      it("never gives one message to two workers claiming at once", async () => {
        const start = await window();
        const entries = Array.from({ length: 12 }, (_, i) => anEntry({ nextAttemptAt: at(start + (i % 3)) }));
        for (const entry of entries) await stores.outbox.enqueue(entry);
        const claims = await Promise.all(
          Array.from({ length: 4 }, () =>
            stores.outbox.claimDue({ now: at(start + 10), limit: 5, leaseUntil: at(start + 20), claim: uuid() }),
          ),
        );
        const ids = claims.flat().map((entry) => entry.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(new Set(ids)).toEqual(new Set(entries.map((entry) => entry.id)));
      });

      it("erases a delivered message and never hands it out again", async () => {
        const start = await window();
        const entry = anEntry({ nextAttemptAt: at(start) });
        await stores.outbox.enqueue(entry);
        const claim = uuid();
        await stores.outbox.claimDue({ now: at(start), limit: 10, leaseUntil: at(start + 1), claim });
        expect(await stores.outbox.markDelivered({ id: entry.id, claim }, at(start + 1))).toBe(true);
        expect(await subject.readOutbox(entry.id)).toEqual({
          ...entry,
          sealedMessage: null,
          nextAttemptAt: null,
          deliveredAt: at(start + 1),
        });
        expect(
          await stores.outbox.claimDue({ now: at(start + 90), limit: 10, leaseUntil: at(start + 91), claim: uuid() }),
        ).toEqual([]);
      });

      it("counts what is still to deliver, per channel, with the oldest's age", async () => {
        await window();
        // Only this test's messages are pending now, whatever earlier tests left behind.
        const start = minute + 100;
        minute = start;
        const future = { nextAttemptAt: at(start + 50) };
        const oldest = anEntry({ ...future, createdAt: at(start - 3) });
        const retrying = anEntry({ ...future, createdAt: at(start - 1), attempts: 2, lastError: "421" });
        const text = anEntry({ ...future, channel: "sms", createdAt: at(start - 2) });
        const delivered = anEntry({ createdAt: at(start - 9), nextAttemptAt: null, deliveredAt: at(start - 8) });
        const givenUp = anEntry({ createdAt: at(start - 9), nextAttemptAt: null, sealedMessage: null, attempts: 5 });
        for (const entry of [retrying, delivered, oldest, text, givenUp]) await stores.outbox.enqueue(entry);
        const claim = uuid();
        await stores.outbox.claimDue({ now: at(start + 50), limit: 1, leaseUntil: at(start + 51), claim });

        const byChannel = Object.fromEntries((await stores.outbox.pending()).map((each) => [each.channel, each]));
        // A message being sent (claimed) is still pending until its outcome is recorded.
        expect(byChannel).toEqual({
          email: { channel: "email", count: 2, oldestCreatedAt: at(start - 3) },
          sms: { channel: "sms", count: 1, oldestCreatedAt: at(start - 2) },
        });
      });

      it("reschedules a failed message, and erases one given up on", async () => {
        const start = await window();
        const retried = anEntry({ nextAttemptAt: at(start) });
        const abandoned = anEntry({ nextAttemptAt: at(start) });
        await stores.outbox.enqueue(retried);
        await stores.outbox.enqueue(abandoned);
        const claim = uuid();
        await stores.outbox.claimDue({ now: at(start), limit: 10, leaseUntil: at(start + 30), claim });
        await stores.outbox.markFailed(
          { id: retried.id, claim },
          { attempts: 1, nextAttemptAt: at(start + 2), error: "421 try later" },
        );
        await stores.outbox.markFailed(
          { id: abandoned.id, claim },
          { attempts: 1, nextAttemptAt: null, error: "unopenable" },
        );

        expect(await subject.readOutbox(retried.id)).toEqual({
          ...retried,
          attempts: 1,
          nextAttemptAt: at(start + 2),
          lastError: "421 try later",
        });
        expect(await subject.readOutbox(abandoned.id)).toMatchObject({
          sealedMessage: null,
          nextAttemptAt: null,
          lastError: "unopenable",
        });
        // A failure ends the lease: the retry is due at its own time, not the lease's.
        const again = await stores.outbox.claimDue({
          now: at(start + 2),
          limit: 10,
          leaseUntil: at(start + 3),
          claim: uuid(),
        });
        expect(again.map((entry) => entry.id)).toEqual([retried.id]);
      });

      it("renews only the leases still held under their claim, and only while they run", async () => {
        const start = await window();
        const [kept, other, lapsed] = [0, 1, 2].map((n) => anEntry({ nextAttemptAt: at(start + n) })) as [
          OutboxEntry,
          OutboxEntry,
          OutboxEntry,
        ];
        for (const entry of [kept, other, lapsed]) await stores.outbox.enqueue(entry);
        const [mine, theirs] = [uuid(), uuid()];
        await stores.outbox.claimDue({ now: at(start + 2), limit: 2, leaseUntil: at(start + 7), claim: mine });
        await stores.outbox.claimDue({ now: at(start + 2), limit: 1, leaseUntil: at(start + 4), claim: theirs });

        // `other` is held under `mine`, not the claim named here; `lapsed`'s lease has run out.
        const renewed = await stores.outbox.renewLeases({
          held: [
            { id: kept.id, claim: mine },
            { id: other.id, claim: theirs },
            { id: lapsed.id, claim: theirs },
          ],
          now: at(start + 5),
          leaseUntil: at(start + 12),
        });
        expect(renewed).toEqual([kept.id]);
        // Past the first lease, only what was renewed is still kept from other workers, until its new lease ends.
        const retaken = await stores.outbox.claimDue({
          now: at(start + 8),
          limit: 10,
          leaseUntil: at(start + 20),
          claim: uuid(),
        });
        expect(retaken.map((entry) => entry.id)).toEqual([other.id, lapsed.id]);
        expect(
          await stores.outbox.claimDue({ now: at(start + 12), limit: 10, leaseUntil: at(start + 13), claim: uuid() }),
        ).toEqual([kept]);
      });

      it("lets a worker take over a claim whose lease ran out, which its first holder can no longer renew", async () => {
        const start = await window();
        const entry = anEntry({ nextAttemptAt: at(start) });
        await stores.outbox.enqueue(entry);
        const [dead, next] = [uuid(), uuid()];
        await stores.outbox.claimDue({ now: at(start), limit: 10, leaseUntil: at(start + 5), claim: dead });
        // Run out, though no one has claimed it yet: not renewed.
        const late = { held: [{ id: entry.id, claim: dead }], now: at(start + 5), leaseUntil: at(start + 9) };
        expect(await stores.outbox.renewLeases(late)).toEqual([]);

        const taken = await stores.outbox.claimDue({
          now: at(start + 5),
          limit: 10,
          leaseUntil: at(start + 8),
          claim: next,
        });
        expect(taken).toEqual([entry]);
        expect(await stores.outbox.renewLeases({ ...late, now: at(start + 6) })).toEqual([]);
        expect(
          await stores.outbox.renewLeases({
            held: [{ id: entry.id, claim: next }],
            now: at(start + 7),
            leaseUntil: at(start + 12),
          }),
        ).toEqual([entry.id]);
        expect(
          await stores.outbox.claimDue({ now: at(start + 11), limit: 10, leaseUntil: at(start + 13), claim: uuid() }),
        ).toEqual([]);
        // Recorded, it has no lease left to renew.
        expect(await stores.outbox.markDelivered({ id: entry.id, claim: next }, at(start + 11))).toBe(true);
        expect(
          await stores.outbox.renewLeases({
            held: [{ id: entry.id, claim: next }],
            now: at(start + 11),
            leaseUntil: at(start + 20),
          }),
        ).toEqual([]);
        expect(await subject.readOutbox(entry.id)).toMatchObject({ deliveredAt: at(start + 11), nextAttemptAt: null });
      });

      it("lets only the latest claim record the outcome: a worker that overran its lease changes nothing", async () => {
        const start = await window();
        const entry = anEntry({ nextAttemptAt: at(start) });
        await stores.outbox.enqueue(entry);
        const [slow, fast] = [uuid(), uuid()];
        await stores.outbox.claimDue({ now: at(start), limit: 10, leaseUntil: at(start + 5), claim: slow });
        const retaken = await stores.outbox.claimDue({
          now: at(start + 5),
          limit: 10,
          leaseUntil: at(start + 10),
          claim: fast,
        });
        expect(retaken.map((claimed) => claimed.id)).toEqual([entry.id]);

        expect(await stores.outbox.markDelivered({ id: entry.id, claim: fast }, at(start + 6))).toBe(true);
        const failedLate = { attempts: 1, nextAttemptAt: at(start + 8), error: "timed out" };
        expect(await stores.outbox.markFailed({ id: entry.id, claim: slow }, failedLate)).toBe(false);
        expect(await stores.outbox.markDelivered({ id: entry.id, claim: slow }, at(start + 9))).toBe(false);
        expect(await subject.readOutbox(entry.id)).toMatchObject({
          deliveredAt: at(start + 6),
          nextAttemptAt: null,
          attempts: 0,
        });
      });
    });

    describe("transactions", () => {
      it("commits what the work wrote when it resolves", async () => {
        const user = aUser();
        const result = await tx.run(async (s) => {
          await s.users.insert(user);
          return "done";
        });
        expect(result).toBe("done");
        expect((await stores.users.findById(user.id))?.id).toBe(user.id);
      });

      it("rolls back everything the work wrote when it throws", async () => {
        const user = aUser();
        const session = aSession(user.id);
        const failure = await rejection(
          tx.run(async (s) => {
            await s.users.insert(user);
            await s.sessions.open(session, aRefreshToken(session.id));
            throw new Error("boom");
          }),
        );
        expect((failure as Error).message).toBe("boom");
        expect(await stores.users.findById(user.id)).toBeNull();
      });

      it("sees its own writes before it commits", async () => {
        const user = aUser();
        await tx.run(async (s) => {
          await s.users.insert(user);
          await s.users.update({ ...user, role: "changed" });
          expect((await s.users.findById(user.id))?.role).toBe("changed");
        });
      });

      it("lets one transaction at a time hold a user row it locked, and shows the next one what the first wrote", async () => {
        const user = aUser();
        await stores.users.insert(user);
        let signalLocked!: () => void;
        const locked = new Promise<void>((resolve) => (signalLocked = resolve));
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));

        const first = tx.run(async (s) => {
          await s.users.findById(user.id, { forUpdate: true });
          signalLocked();
          await released;
          await s.users.update({ ...user, userMetadata: { writtenBy: "first" } });
        });
        await locked;
        let secondDone = false;
        const second = tx.run(async (s) => {
          const found = await s.users.findById(user.id, { forUpdate: true });
          secondDone = true;
          return found?.userMetadata;
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(secondDone).toBe(false);
        release();
        await first;
        expect(await second).toEqual({ writtenBy: "first" });
      });
    });
  });
}
