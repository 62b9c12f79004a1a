import { describe, expect, it } from "vitest";
import type { AdminPrincipal } from "../../deps.ts";
import type { AuditEntry } from "../../model/audit.ts";
import { NO_USER_ID } from "../../services/audit.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth, type TestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { FastPasswordHasher, OUTDATED_PREFIX } from "../../testing/fast-password-hasher.ts";

const admin: AdminPrincipal = { role: "service_role", userId: null, claims: {} };
const password = "s3cret-pass";

/** Shaped as bcrypt writes them (cost 10, 22 characters of salt, 31 of hash). */
const BCRYPT_HASH = "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy";
const ARGON2_HASH = "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$RdescudvJCsgt3ub+b+dWRWJTmaaJObGvqPsE4jVVA8";
const IMPORTED_PASSWORD = "the imported one";

/** Stands for the production hasher on the hashes an import brings: it verifies them, and asks for a re-hash. */
class ImportingHasher extends FastPasswordHasher {
  override async verify(hash: string, candidate: string) {
    if (hash !== BCRYPT_HASH) return super.verify(hash, candidate);
    this.verifications++;
    return { ok: candidate === IMPORTED_PASSWORD, needsRehash: true };
  }
}

const lastAudit = async (testAuth: TestAuth): Promise<AuditEntry | undefined> =>
  (await testAuth.stores.auditLog.list({ page: 1, perPage: 1 })).entries[0];

/** A confirmed email user with a password and a phone, signed in. */
async function withSignedInUser(options: TestAuthOptions = {}) {
  const testAuth = createTestAuth(options);
  const user = aUser({
    email: "known@example.com",
    phone: "+15550100001",
    passwordHash: await testAuth.hasher.hash(password),
    userMetadata: { keep: 1, drop: 2 },
    appMetadata: { provider: "email", providers: ["email"], tier: "gold" },
  });
  await testAuth.stores.users.insert(user);
  const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
  return { ...testAuth, user, grant };
}

describe("admin: create a user", () => {
  it("needs an email or a phone, stores both normalised with an identity each, and mails nothing", async () => {
    const { auth, stores, emails } = createTestAuth();
    await failsWith("validation_failed", auth.admin.createUser({ admin, context }));
    await failsWith("validation_failed", auth.admin.createUser({ admin, email: "", phone: "", context }));
    await failsWith("validation_failed", auth.admin.createUser({ admin, email: "not-an-email", context }));

    const user = await auth.admin.createUser({ admin, email: "Mixed@Example.com", phone: "+1 555 010 1000", context });
    expect(user).toMatchObject({
      email: "mixed@example.com",
      phone: "+15550101000",
      emailConfirmedAt: null,
      phoneConfirmedAt: null,
    });
    expect(user).toMatchObject({ passwordHash: null, role: "authenticated", aud: "authenticated", bannedUntil: null });
    expect(user.appMetadata).toEqual({ provider: "email", providers: ["email", "phone"] });
    const stored = (await stores.users.findById(user.id))!;
    expect(stored.email).toBe("mixed@example.com");
    expect(stored.identities.map((identity) => identity.provider).sort()).toEqual(["email", "phone"]);
    expect(stored.identities.every((identity) => identity.providerId === user.id)).toBe(true);
    expect(await emails()).toEqual([]);

    const phoneOnly = await auth.admin.createUser({ admin, phone: "+15550101001", context });
    expect(phoneOnly).toMatchObject({
      email: null,
      phone: "+15550101001",
      appMetadata: { provider: "phone", providers: ["phone"] },
    });
  });

  it("refuses an email or a phone another user holds, and creates nothing", async () => {
    const { auth, stores } = createTestAuth();
    await stores.users.insert(aUser({ email: "taken@example.com", phone: "+15550102000" }));
    await stores.users.insert(aUser({ email: "pending@example.com", emailConfirmedAt: null }));
    await failsWith("email_exists", auth.admin.createUser({ admin, email: "TAKEN@example.com", context }));
    await failsWith("email_exists", auth.admin.createUser({ admin, email: "pending@example.com", context }));
    await failsWith("phone_exists", auth.admin.createUser({ admin, phone: "+1 555 010 2000", context }));
    await failsWith(
      "phone_exists",
      auth.admin.createUser({ admin, email: "free@example.com", phone: "+15550102000", context }),
    );
    expect(await stores.users.findByEmail("free@example.com")).toBeNull();
    expect((await auth.admin.listUsers({})).total).toBe(2);
  });

  it("takes the id it is given, when it is a free, non-nil uuid", async () => {
    const { auth, stores } = createTestAuth();
    const id = "7d3c5f0e-1b2a-4c8d-9e0f-112233445566";
    expect((await auth.admin.createUser({ admin, id, email: "chosen@example.com", context })).id).toBe(id);
    expect((await stores.users.findByEmail("chosen@example.com"))?.id).toBe(id);
    await failsWith(
      "validation_failed",
      auth.admin.createUser({ admin, id: "not-a-uuid", email: "a@example.com", context }),
    );
    await failsWith(
      "validation_failed",
      auth.admin.createUser({ admin, id: NO_USER_ID, email: "b@example.com", context }),
    );
    await failsWith("user_already_exists", auth.admin.createUser({ admin, id, email: "c@example.com", context }));
    expect((await auth.admin.listUsers({})).total).toBe(1);
  });

  it("sets a password the policy accepts, which signs in once the email is confirmed", async () => {
    const { auth } = createTestAuth({ policy: { password: { minLength: 8 } } });
    await failsWith(
      "weak_password",
      auth.admin.createUser({ admin, email: "weak@example.com", password: "short", context }),
    );
    const both = auth.admin.createUser({
      admin,
      email: "both@example.com",
      password,
      passwordHash: BCRYPT_HASH,
      context,
    });
    await failsWith("validation_failed", both);
    expect((await auth.admin.listUsers({})).total).toBe(0);

    const confirmed = await auth.admin.createUser({
      admin,
      email: "in@example.com",
      password,
      emailConfirm: true,
      context,
    });
    expect((await auth.signInWithPassword({ email: "in@example.com", password, context })).user.id).toBe(confirmed.id);
    await auth.admin.createUser({ admin, email: "unconfirmed@example.com", password, context });
    await failsWith(
      "email_not_confirmed",
      auth.signInWithPassword({ email: "unconfirmed@example.com", password, context }),
    );
  });

  it("stores an imported bcrypt or argon2 hash as it is, which signs in with its password", async () => {
    const hasher = new ImportingHasher();
    const { auth, stores } = createTestAuth({ ports: { hasher } });
    const user = await auth.admin.createUser({
      admin,
      email: "imported@example.com",
      passwordHash: BCRYPT_HASH,
      emailConfirm: true,
      context,
    });
    expect(user.passwordHash).toBe(BCRYPT_HASH);
    expect(hasher.hashes).toBe(0);
    await failsWith(
      "invalid_credentials",
      auth.signInWithPassword({ email: "imported@example.com", password: "not it", context }),
    );
    expect(
      (await auth.signInWithPassword({ email: "imported@example.com", password: IMPORTED_PASSWORD, context })).user.id,
    ).toBe(user.id);
    // The hasher asked for a re-hash: the imported hash is replaced by one of ours, and the password still works.
    expect((await stores.users.findById(user.id))?.passwordHash).not.toBe(BCRYPT_HASH);
    await auth.signInWithPassword({ email: "imported@example.com", password: IMPORTED_PASSWORD, context });

    const argon = await auth.admin.createUser({
      admin,
      email: "argon@example.com",
      passwordHash: ARGON2_HASH,
      context,
    });
    expect((await stores.users.findById(argon.id))?.passwordHash).toBe(ARGON2_HASH);
  });

  it.each(["plain text", "$2a$10$tooshort", `${OUTDATED_PREFIX}abc`, "$argon2d$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA"])(
    "refuses the malformed or foreign hash %j and creates nothing",
    async (passwordHash) => {
      const { auth } = createTestAuth();
      await failsWith(
        "validation_failed",
        auth.admin.createUser({ admin, email: "bad-hash@example.com", passwordHash, context }),
      );
      expect((await auth.admin.listUsers({})).total).toBe(0);
    },
  );

  it("confirms the email and the phone when asked, marking them verified", async () => {
    const { auth, clock } = createTestAuth();
    const user = await auth.admin.createUser({
      admin,
      email: "c@example.com",
      phone: "+15550103000",
      emailConfirm: true,
      phoneConfirm: true,
      context,
    });
    expect(user.emailConfirmedAt).toEqual(clock.now());
    expect(user.phoneConfirmedAt).toEqual(clock.now());
    expect(user.userMetadata).toMatchObject({ email_verified: true, phone_verified: true });
    expect(user.identities.find((identity) => identity.provider === "email")?.identityData).toMatchObject({
      email_verified: true,
    });
    expect(user.identities.find((identity) => identity.provider === "phone")?.identityData).toMatchObject({
      phone_verified: true,
    });

    const emailOnly = await auth.admin.createUser({
      admin,
      email: "d@example.com",
      phone: "+15550103001",
      emailConfirm: true,
      context,
    });
    expect(emailOnly.emailConfirmedAt).toBeInstanceOf(Date);
    expect(emailOnly.phoneConfirmedAt).toBeNull();
  });

  it("merges the given app_metadata with the providers, and keeps user_metadata, role and audience", async () => {
    const { auth } = createTestAuth();
    const user = await auth.admin.createUser({
      admin,
      email: "meta@example.com",
      appMetadata: { plan: "pro", roles: ["a"] },
      userMetadata: { full_name: "Meta Data" },
      role: "staff",
      aud: "backoffice",
      context,
    });
    expect(user.appMetadata).toEqual({ provider: "email", providers: ["email"], plan: "pro", roles: ["a"] });
    expect(user.userMetadata).toEqual({ full_name: "Meta Data" });
    expect(user).toMatchObject({ role: "staff", aud: "backoffice" });
    expect(
      (await auth.admin.createUser({ admin, email: "aud@example.com", audience: "from-header", context })).aud,
    ).toBe("from-header");
  });

  it("bans for ban_duration, and refuses a duration that is not one", async () => {
    const { auth, clock } = createTestAuth();
    const user = await auth.admin.createUser({
      admin,
      email: "b@example.com",
      password,
      emailConfirm: true,
      banDuration: "24h",
      context,
    });
    expect(user.bannedUntil).toEqual(new Date(clock.now().getTime() + 24 * 3_600_000));
    await failsWith("user_banned", auth.signInWithPassword({ email: "b@example.com", password, context }));
    await failsWith(
      "validation_failed",
      auth.admin.createUser({ admin, email: "c@example.com", banDuration: "forever", context }),
    );
    expect(await auth.admin.listUsers({ email: "c@example.com" })).toMatchObject({ total: 0 });
  });

  it("records user_signedup with the admin as the actor and the user in the traits", async () => {
    const testAuth = createTestAuth();
    const user = await testAuth.auth.admin.createUser({
      admin,
      email: "audited@example.com",
      phone: "+15550104000",
      context,
    });
    expect(await lastAudit(testAuth)).toMatchObject<Partial<AuditEntry>>({
      action: "user_signedup",
      actorId: NO_USER_ID,
      actorUsername: "service_role",
      actorName: null,
      traits: { user_id: user.id, user_email: "audited@example.com", user_phone: "+15550104000" },
      ipAddress: "203.0.113.7",
      userAgent: "vitest",
    });

    // An admin who is a user is named by its id and its phone, else its email.
    const person: AdminPrincipal = {
      role: "supabase_admin",
      userId: "11111111-2222-4333-8444-555555555555",
      claims: { email: "boss@example.com", phone: "" },
    };
    await testAuth.auth.admin.createUser({ admin: person, email: "second@example.com", context });
    expect(await lastAudit(testAuth)).toMatchObject({
      actorId: person.userId,
      actorUsername: "boss@example.com",
      traits: { user_phone: "" },
    });
  });
});

describe("admin: update a user", () => {
  it("answers user_not_found for an unknown id", async () => {
    const { auth } = createTestAuth();
    await failsWith(
      "user_not_found",
      auth.admin.updateUser({ admin, userId: crypto.randomUUID(), userMetadata: { a: 1 }, context }),
    );
  });

  it("moves the email at once, updating its identity and voiding the tokens sent to the old one", async () => {
    const { auth, user, stores, lastEmail, emails } = await withSignedInUser();
    await auth.recoverPassword({ email: "known@example.com", context });
    const recovery = (await lastEmail("known@example.com", "recovery"))!;
    const sentBefore = (await emails()).length;

    const updated = await auth.admin.updateUser({ admin, userId: user.id, email: "Moved@Example.com", context });
    expect(updated).toMatchObject({ email: "moved@example.com", newEmail: null });
    expect(updated.emailConfirmedAt).toEqual(user.emailConfirmedAt);
    const stored = (await stores.users.findById(user.id))!;
    expect(stored.identities).toHaveLength(1);
    expect(stored.identities[0]).toMatchObject({
      id: user.identities[0]!.id,
      identityData: { email: "moved@example.com" },
    });
    expect(await stores.oneTimeTokens.findByUser(user.id, "recovery")).toBeNull();
    await failsWith(
      "otp_expired",
      auth.verify({ type: "recovery", proof: { linkToken: recovery.linkToken }, followedLink: true, context }),
    );
    await failsWith("invalid_credentials", auth.signInWithPassword({ email: "known@example.com", password, context }));
    expect((await auth.signInWithPassword({ email: "moved@example.com", password, context })).user.id).toBe(user.id);
    expect(await emails()).toHaveLength(sentBefore);
  });

  it("sets the phone at once with its identity, confirmed only when asked", async () => {
    const { auth, user } = await withSignedInUser();
    const moved = await auth.admin.updateUser({ admin, userId: user.id, phone: "+1 555 010 5000", context });
    expect(moved).toMatchObject({ phone: "+15550105000", newPhone: null, phoneConfirmedAt: null });
    expect(moved.appMetadata).toMatchObject({ providers: ["email", "phone"], tier: "gold" });
    expect(moved.identities.find((identity) => identity.provider === "phone")?.identityData).toMatchObject({
      phone: "+15550105000",
    });
    await failsWith("phone_not_confirmed", auth.signInWithPassword({ phone: "+15550105000", password, context }));
    const confirmed = await auth.admin.updateUser({ admin, userId: user.id, phoneConfirm: true, context });
    expect(confirmed.phoneConfirmedAt).toBeInstanceOf(Date);
    expect((await auth.signInWithPassword({ phone: "+15550105000", password, context })).user.id).toBe(user.id);
  });

  it("refuses an email or phone another user holds, and changes nothing else of the request", async () => {
    const { auth, user, stores } = await withSignedInUser();
    await stores.users.insert(aUser({ email: "other@example.com", phone: "+15550106000" }));
    const taken = auth.admin.updateUser({
      admin,
      userId: user.id,
      email: "OTHER@example.com",
      userMetadata: { keep: 9 },
      context,
    });
    await failsWith("email_exists", taken);
    await failsWith(
      "phone_exists",
      auth.admin.updateUser({ admin, userId: user.id, phone: "+15550106000", role: "x", context }),
    );
    const stored = (await stores.users.findById(user.id))!;
    expect(stored).toMatchObject({
      email: "known@example.com",
      phone: "+15550100001",
      role: "authenticated",
      userMetadata: { keep: 1 },
    });
  });

  it("merges user_metadata and app_metadata, a null removing a key", async () => {
    const { auth, user, stores } = await withSignedInUser();
    const updated = await auth.admin.updateUser({
      admin,
      userId: user.id,
      userMetadata: { drop: null, added: { x: 1 } },
      appMetadata: { tier: null, plan: "pro" },
      role: "staff",
      context,
    });
    expect(updated.userMetadata).toEqual({ keep: 1, added: { x: 1 } });
    expect(updated.appMetadata).toEqual({ provider: "email", providers: ["email"], plan: "pro" });
    expect(await stores.users.findById(user.id)).toMatchObject({
      role: "staff",
      userMetadata: { keep: 1, added: { x: 1 } },
    });
  });

  it("confirms an unconfirmed email when asked, and leaves a confirmed one alone", async () => {
    const { auth, stores, clock } = createTestAuth();
    const pending = aUser({ email: "pending@example.com", emailConfirmedAt: null });
    await stores.users.insert(pending);
    clock.advance({ minutes: 5 });
    const confirmed = await auth.admin.updateUser({ admin, userId: pending.id, emailConfirm: true, context });
    expect(confirmed.emailConfirmedAt).toEqual(clock.now());
    clock.advance({ minutes: 5 });
    expect(
      (await auth.admin.updateUser({ admin, userId: pending.id, emailConfirm: true, context })).emailConfirmedAt,
    ).toEqual(confirmed.emailConfirmedAt);
  });

  it("sets a new password, ending every session, and refuses a weak one", async () => {
    const { auth, user, grant } = await withSignedInUser({ policy: { password: { minLength: 8 } } });
    await failsWith("weak_password", auth.admin.updateUser({ admin, userId: user.id, password: "short", context }));
    expect((await auth.authenticate({ accessToken: grant.accessToken })).user.id).toBe(user.id);

    await auth.admin.updateUser({ admin, userId: user.id, password: "a brand new one", context });
    await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    await failsWith("session_not_found", auth.authenticate({ accessToken: grant.accessToken }));
    await failsWith("invalid_credentials", auth.signInWithPassword({ email: user.email!, password, context }));
    expect((await auth.signInWithPassword({ email: user.email!, password: "a brand new one", context })).user.id).toBe(
      user.id,
    );
  });

  it("bans: password sign-in and the access token are refused as user_banned, the sessions end, until none lifts it", async () => {
    const { auth, user, grant, clock } = await withSignedInUser();
    const banned = await auth.admin.updateUser({ admin, userId: user.id, banDuration: "1h", context });
    expect(banned.bannedUntil).toEqual(new Date(clock.now().getTime() + 3_600_000));
    await failsWith("user_banned", auth.signInWithPassword({ email: user.email!, password, context }));
    await failsWith("user_banned", auth.authenticate({ accessToken: grant.accessToken }));
    await failsWith("user_banned", auth.refreshSession({ refreshToken: grant.refreshToken, context }));

    const lifted = await auth.admin.updateUser({ admin, userId: user.id, banDuration: "none", context });
    expect(lifted.bannedUntil).toBeNull();
    // Lifting the ban does not bring the ended session back: neither its access nor its refresh token works.
    await failsWith("session_expired", auth.authenticate({ accessToken: grant.accessToken }));
    await failsWith("session_expired", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    const again = await auth.signInWithPassword({ email: user.email!, password, context });
    expect((await auth.refreshSession({ refreshToken: again.refreshToken, context })).user.id).toBe(user.id);
  });

  it("lets a ban run out", async () => {
    const { auth, user, clock } = await withSignedInUser();
    await auth.admin.updateUser({ admin, userId: user.id, banDuration: "1h30m", context });
    clock.advance({ hours: 1 });
    await failsWith("user_banned", auth.signInWithPassword({ email: user.email!, password, context }));
    clock.advance({ minutes: 30 });
    await auth.signInWithPassword({ email: user.email!, password, context });
  });

  it.each(["-1h", "abc", "1e9h", "99999999999h", "1d", ""])(
    "refuses the ban duration %j and changes nothing",
    async (banDuration) => {
      const { auth, user, stores, grant } = await withSignedInUser();
      await failsWith(
        "validation_failed",
        auth.admin.updateUser({ admin, userId: user.id, banDuration, userMetadata: { x: 1 }, context }),
      );
      expect(await stores.users.findById(user.id)).toMatchObject({
        bannedUntil: null,
        userMetadata: { keep: 1, drop: 2 },
      });
      await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    },
  );

  it("records user_modified with the admin as the actor, and the ban when there is one", async () => {
    const testAuth = await withSignedInUser();
    const { auth, user, clock } = testAuth;
    await auth.admin.updateUser({ admin, userId: user.id, userMetadata: { a: 1 }, context });
    expect(await lastAudit(testAuth)).toMatchObject({
      action: "user_modified",
      actorId: NO_USER_ID,
      actorUsername: "service_role",
      traits: { user_id: user.id, user_email: "known@example.com", user_phone: "+15550100001" },
    });
    await auth.admin.updateUser({ admin, userId: user.id, banDuration: "2h", context });
    const until = new Date(clock.now().getTime() + 7_200_000).toISOString();
    expect((await lastAudit(testAuth))?.traits).toMatchObject({ banned_until: until });
    await auth.admin.updateUser({ admin, userId: user.id, banDuration: "none", context });
    expect((await lastAudit(testAuth))?.traits).toMatchObject({ banned_until: null });
  });
});

describe("admin: delete a user", () => {
  it("removes the user for good, keeps the audit entry, and frees the email for a new signup", async () => {
    const testAuth = await withSignedInUser();
    const { auth, user, grant, stores } = testAuth;
    await auth.admin.deleteUser({ admin, userId: user.id, context });

    await failsWith("user_not_found", auth.admin.getUser({ userId: user.id }));
    expect(await stores.users.findById(user.id)).toBeNull();
    await failsWith("invalid_credentials", auth.signInWithPassword({ email: user.email!, password, context }));
    await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    await failsWith("user_not_found", auth.authenticate({ accessToken: grant.accessToken }));
    expect(await lastAudit(testAuth)).toMatchObject({
      action: "user_deleted",
      actorUsername: "service_role",
      traits: { user_id: user.id, user_email: "known@example.com", user_phone: "+15550100001" },
    });

    const again = await auth.signUp({ email: "known@example.com", password, context });
    expect(again.kind === "user" && again.user.id).not.toBe(user.id);
    expect((await stores.users.findByEmail("known@example.com"))?.id).not.toBe(user.id);
    await failsWith("user_not_found", auth.admin.deleteUser({ admin, userId: user.id, context }));
  });

  it("soft: keeps the row marked deleted, without address, identity, password, session or token", async () => {
    const testAuth = await withSignedInUser();
    const { auth, user, grant, stores, clock } = testAuth;
    await auth.recoverPassword({ email: user.email!, context });
    clock.advance({ minutes: 1 });
    await auth.admin.deleteUser({ admin, userId: user.id, softDelete: true, context });

    const kept = (await auth.admin.getUser({ userId: user.id }))!;
    expect(kept).toMatchObject({
      email: null,
      phone: null,
      passwordHash: null,
      identities: [],
      deletedAt: clock.now(),
    });
    expect(kept.userMetadata).toEqual(user.userMetadata);
    expect(await stores.oneTimeTokens.findByUser(user.id, "recovery")).toBeNull();
    await failsWith("refresh_token_not_found", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    // The row is kept, its tokens are not: the user reads as gone.
    await failsWith("user_not_found", auth.authenticate({ accessToken: grant.accessToken }));
    await failsWith("invalid_credentials", auth.signInWithPassword({ email: "known@example.com", password, context }));
    expect((await lastAudit(testAuth))?.traits).toMatchObject({ user_email: "known@example.com" });

    const taker = await auth.admin.createUser({ admin, email: "known@example.com", phone: "+15550100001", context });
    expect(taker.id).not.toBe(user.id);
  });

  it("answers user_not_found for an unknown id", async () => {
    const { auth } = createTestAuth();
    await failsWith(
      "user_not_found",
      auth.admin.deleteUser({ admin, userId: crypto.randomUUID(), softDelete: true, context }),
    );
  });
});
