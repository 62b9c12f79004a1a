import { describe, expect, it } from "vitest";
import type { AdminPrincipal } from "../deps.ts";
import { type Metadata, metadataBytes } from "../model/metadata.ts";
import { aUser } from "../testing/builders.ts";
import { createTestAuth, type TestAuthOptions } from "../testing/create-test-auth.ts";
import { context, failsWith } from "../testing/fails-with.ts";

// Every way a client or an admin sets user_metadata or app_metadata, against the limits of model/metadata.ts.

const admin: AdminPrincipal = { role: "service_role", userId: null, claims: {} };
const password = "s3cret-pass";
const USER_MAX = 8192;
const APP_MAX = 2048;

/** `{ pad }` such that `{ ...alongside, pad }` takes exactly `bytes` as JSON: `unit` repeated, then "x" to fill. */
function padTo(bytes: number, alongside: Metadata = {}, unit = "x"): Metadata {
  const unitBytes = metadataBytes({ u: unit }) - metadataBytes({ u: "" });
  const room = bytes - metadataBytes({ ...alongside, pad: "" });
  return { pad: unit.repeat(Math.floor(room / unitBytes)) + "x".repeat(room % unitBytes) };
}

/** The keys a user's own signup adds to its data (see services/accounts/new-account.ts); any UUID measures the same. */
function identityKeys(contact: { email: string } | { phone: string }): Metadata {
  return { sub: "00000000-0000-0000-0000-000000000000", ...contact, email_verified: false, phone_verified: false };
}

function tooLarge(field: string, max: number, got: number): string {
  return `${field} is too large: at most ${max} bytes as JSON, got ${got}`;
}

async function signedIn(options: TestAuthOptions = {}, userMetadata: Metadata = {}) {
  const testAuth = createTestAuth(options);
  const user = aUser({ passwordHash: await testAuth.hasher.hash(password), userMetadata });
  await testAuth.stores.users.insert(user);
  const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password, context });
  const principal = await testAuth.auth.authenticate({ accessToken: grant.accessToken });
  return { ...testAuth, user, principal };
}

describe("metadata size limits: signup", () => {
  it("takes an email signup whose user_metadata (data and the identity's keys) is at the limit", async () => {
    const { auth } = createTestAuth();
    const email = "at-limit@example.com";
    const data = padTo(USER_MAX, identityKeys({ email }));
    const result = await auth.signUp({ email, password, data, context });
    expect(result.kind).toBe("user");
    if (result.kind !== "user") return;
    expect(metadataBytes(result.user.userMetadata)).toBe(USER_MAX);
  });

  it("refuses one byte more, writes nothing, and says so without the content", async () => {
    const { auth, stores, emails } = createTestAuth();
    const email = "past-limit@example.com";
    const data = padTo(USER_MAX + 1, identityKeys({ email }));
    const refused = await failsWith("validation_failed", auth.signUp({ email, password, data, context }));
    expect(refused.message).toBe(tooLarge("user_metadata", USER_MAX, USER_MAX + 1));
    expect(await stores.users.findByEmail(email)).toBeNull();
    expect(await emails()).toEqual([]);
  });

  it("refuses an address that has an account alike, so the answer tells nothing", async () => {
    const { auth, stores } = createTestAuth();
    await stores.users.insert(aUser({ email: "taken@example.com" }));
    await stores.users.insert(aUser({ email: "pending@example.com", emailConfirmedAt: null }));
    for (const email of ["taken@example.com", "pending@example.com"]) {
      const data = padTo(USER_MAX + 1, identityKeys({ email }));
      const refused = await failsWith("validation_failed", auth.signUp({ email, password, data, context }));
      expect(refused.message).toBe(tooLarge("user_metadata", USER_MAX, USER_MAX + 1));
    }
  });

  it("counts bytes, not characters", async () => {
    const { auth } = createTestAuth();
    const email = "multibyte@example.com";
    // 2,800 characters of 3 bytes each: 8,400 bytes.
    const data = { pad: "€".repeat(2800) };
    const refused = await failsWith("validation_failed", auth.signUp({ email, password, data, context }));
    expect(refused.message).toBe(
      tooLarge("user_metadata", USER_MAX, metadataBytes({ ...data, ...identityKeys({ email }) })),
    );
    const fits = padTo(USER_MAX, identityKeys({ email }), "😀");
    expect(await auth.signUp({ email, password, data: fits, context })).toMatchObject({ kind: "user" });
  });

  it("limits a phone signup, and one signed in at once", async () => {
    const { auth, stores } = createTestAuth({ policy: { signup: { phoneAutoconfirm: true } } });
    const phone = "+15550100123";
    const over = padTo(USER_MAX + 1, identityKeys({ phone }));
    await failsWith("validation_failed", auth.signUp({ phone, password, data: over, context }));
    expect(await stores.users.findByPhone(phone)).toBeNull();
    const result = await auth.signUp({ phone, password, data: padTo(USER_MAX, identityKeys({ phone })), context });
    expect(result.kind).toBe("session");
  });

  it("limits an anonymous signup, whose user_metadata is the data alone", async () => {
    const { auth } = createTestAuth({ policy: { signup: { anonymousEnabled: true } } });
    const refused = await failsWith("validation_failed", auth.signUp({ data: padTo(USER_MAX + 1), context }));
    expect(refused.message).toBe(tooLarge("user_metadata", USER_MAX, USER_MAX + 1));
    const result = await auth.signUp({ data: padTo(USER_MAX), context });
    expect(result.kind).toBe("session");
    if (result.kind !== "session") return;
    expect(metadataBytes(result.grant.user.userMetadata)).toBe(USER_MAX);
  });
});

describe("metadata size limits: /otp and /magiclink", () => {
  it("limits the data of a mail sign-in that creates the account, and creates nothing past it", async () => {
    const { auth, stores, emails } = createTestAuth();
    const email = "new@example.com";
    const over = padTo(USER_MAX + 1, identityKeys({ email }));
    await failsWith("validation_failed", auth.sendMagicLink({ email, createUser: true, data: over, context }));
    expect(await stores.users.findByEmail(email)).toBeNull();
    expect(await emails()).toEqual([]);
    await auth.sendMagicLink({ email, createUser: true, data: padTo(USER_MAX, identityKeys({ email })), context });
    expect(await stores.users.findByEmail(email)).not.toBeNull();
  });

  it("limits the data of an SMS sign-in that creates the account", async () => {
    const { auth, stores } = createTestAuth();
    const phone = "+15550100456";
    const over = padTo(USER_MAX + 1, identityKeys({ phone }));
    await failsWith("validation_failed", auth.sendSmsOtp({ phone, createUser: true, data: over, context }));
    expect(await stores.users.findByPhone(phone)).toBeNull();
    await auth.sendSmsOtp({ phone, createUser: true, data: padTo(USER_MAX, identityKeys({ phone })), context });
    expect(await stores.users.findByPhone(phone)).not.toBeNull();
  });
});

describe("metadata size limits: PUT /user", () => {
  it("measures user_metadata after the merge, so small updates cannot add up past the limit", async () => {
    const { auth, principal, stores, user } = await signedIn({}, { keep: "k" });
    const atLimit = padTo(USER_MAX, { keep: "k" });
    const updated = await auth.updateUser({ principal, data: atLimit, context });
    expect(metadataBytes(updated.userMetadata)).toBe(USER_MAX);

    const refused = await failsWith("validation_failed", auth.updateUser({ principal, data: { more: 1 }, context }));
    expect(refused.message).toBe(tooLarge("user_metadata", USER_MAX, USER_MAX + ',"more":1'.length));
    expect((await stores.users.findById(user.id))?.userMetadata).toEqual(updated.userMetadata);

    // Replacing a key with one of the same size, or removing one, keeps it inside.
    const trimmed = await auth.updateUser({ principal, data: { keep: null, more: 1 }, context });
    expect(metadataBytes(trimmed.userMetadata)).toBeLessThanOrEqual(USER_MAX);
  });

  it("refuses one byte past the limit, and changes nothing else the request asked for", async () => {
    const { auth, principal, stores, user } = await signedIn();
    const refused = await failsWith(
      "validation_failed",
      auth.updateUser({ principal, data: padTo(USER_MAX + 1), password: "a brand new one", context }),
    );
    expect(refused.message).toBe(tooLarge("user_metadata", USER_MAX, USER_MAX + 1));
    const stored = await stores.users.findById(user.id);
    expect(stored?.userMetadata).toEqual({});
    expect(stored?.passwordHash).toBe(user.passwordHash);
  });

  it("takes a change that shrinks metadata already over the limit, and refuses one that grows it", async () => {
    const imported = { big: "x".repeat(20_000), old: "y".repeat(100) };
    const { auth, principal } = await signedIn({}, imported);
    await failsWith("validation_failed", auth.updateUser({ principal, data: { added: 1 }, context }));
    const shrunk = await auth.updateUser({ principal, data: { old: null }, context });
    expect(shrunk.userMetadata).toEqual({ big: imported.big });
    // Setting a key to what it holds grows nothing: taken.
    const unchanged = await auth.updateUser({ principal, data: { big: imported.big }, context });
    expect(unchanged.userMetadata).toEqual({ big: imported.big });
  });
});

describe("metadata size limits: invitations and generated links", () => {
  it("limits an invitation's data, the new account's whole user_metadata", async () => {
    const { auth, stores, emails } = createTestAuth();
    const email = "invited@example.com";
    const refused = await failsWith(
      "validation_failed",
      auth.inviteUser({ admin, email, data: padTo(USER_MAX + 1), context }),
    );
    expect(refused.message).toBe(tooLarge("user_metadata", USER_MAX, USER_MAX + 1));
    expect(await stores.users.findByEmail(email)).toBeNull();
    expect(await emails()).toEqual([]);
    const invited = await auth.inviteUser({ admin, email, data: padTo(USER_MAX), context });
    expect(metadataBytes(invited.userMetadata)).toBe(USER_MAX);
  });

  it("limits a generated link's data, merged into an account awaiting confirmation", async () => {
    const { auth, stores } = createTestAuth();
    const email = "linked@example.com";
    const signup = (data: Metadata) =>
      auth.admin.generateLink({ admin, type: "signup", email, password, data, context });
    await failsWith("validation_failed", signup(padTo(USER_MAX + 1)));
    expect(await stores.users.findByEmail(email)).toBeNull();
    const created = await signup(padTo(USER_MAX));
    expect(metadataBytes(created.user.userMetadata)).toBe(USER_MAX);

    await failsWith("validation_failed", signup({ one: 1 }));
    expect((await stores.users.findByEmail(email))?.userMetadata).toEqual(created.user.userMetadata);
    const invite = (data: Metadata) =>
      auth.admin.generateLink({ admin, type: "invite", email: "i@example.com", data, context });
    await failsWith("validation_failed", invite(padTo(USER_MAX + 1)));
    expect((await invite(padTo(USER_MAX))).user.userMetadata).toEqual(padTo(USER_MAX));
  });
});

describe("metadata size limits: admin users", () => {
  it("limits a created user's user_metadata and app_metadata, this one with the providers counted", async () => {
    const { auth, stores } = createTestAuth();
    const email = "created@example.com";
    const providers = { provider: "email", providers: ["email"] };
    const create = (fields: { userMetadata?: Metadata; appMetadata?: Metadata }) =>
      auth.admin.createUser({ admin, email, ...fields, context });

    const user = await failsWith("validation_failed", create({ userMetadata: padTo(USER_MAX + 1) }));
    expect(user.message).toBe(tooLarge("user_metadata", USER_MAX, USER_MAX + 1));
    const app = await failsWith("validation_failed", create({ appMetadata: padTo(APP_MAX + 1, providers) }));
    expect(app.message).toBe(tooLarge("app_metadata", APP_MAX, APP_MAX + 1));
    expect(await stores.users.findByEmail(email)).toBeNull();

    const created = await create({ userMetadata: padTo(USER_MAX), appMetadata: padTo(APP_MAX, providers) });
    expect(metadataBytes(created.userMetadata)).toBe(USER_MAX);
    expect(metadataBytes(created.appMetadata)).toBe(APP_MAX);
  });

  it("measures an update after the merge, and takes one that shrinks metadata already over the limit", async () => {
    const { auth, stores } = createTestAuth();
    const appMetadata = { provider: "email", providers: ["email"], tier: "gold" };
    const target = aUser({ userMetadata: { a: 1 }, appMetadata });
    await stores.users.insert(target);
    const update = (fields: { userMetadata?: Metadata; appMetadata?: Metadata }) =>
      auth.admin.updateUser({ admin, userId: target.id, ...fields, context });

    const atLimit = await update({ userMetadata: padTo(USER_MAX, { a: 1 }), appMetadata: padTo(APP_MAX, appMetadata) });
    expect(metadataBytes(atLimit.userMetadata)).toBe(USER_MAX);
    expect(metadataBytes(atLimit.appMetadata)).toBe(APP_MAX);
    await failsWith("validation_failed", update({ userMetadata: { b: 2 } }));
    const app = await failsWith("validation_failed", update({ appMetadata: { seats: 3 } }));
    expect(app.message).toBe(tooLarge("app_metadata", APP_MAX, APP_MAX + ',"seats":3'.length));
    expect(await stores.users.findById(target.id)).toMatchObject({
      userMetadata: atLimit.userMetadata,
      appMetadata: atLimit.appMetadata,
    });

    const imported = aUser({
      userMetadata: { big: "x".repeat(20_000), b: 2 },
      appMetadata: { big: "y".repeat(5_000) },
    });
    await stores.users.insert(imported);
    const shrunk = await auth.admin.updateUser({
      admin,
      userId: imported.id,
      userMetadata: { b: null },
      appMetadata: { big: "small" },
      context,
    });
    expect(shrunk.userMetadata).toEqual({ big: "x".repeat(20_000) });
    expect(shrunk.appMetadata).toEqual({ big: "small" });
  });
});
