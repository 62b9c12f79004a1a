import type { Factor, ImportedAccount, Passkey, RefreshToken, User, WebAuthnKey } from "@latchkey/domain";
import { aSession, aUser, nodeRandom } from "@latchkey/domain/testing";
import { describe, expect, it } from "vitest";
import { createPostgres } from "../src/index.ts";
import { openEmbeddedTestDatabase, randomNamespace } from "../src/testing/index.ts";
import { backends, openedFor } from "./support.ts";

const at = new Date("2026-01-01T00:00:00Z");
const later = (seconds: number) => new Date(at.getTime() + seconds * 1000);

/** An account with one session and its two tokens, the second current. */
function anAccount(overrides: Partial<User> = {}): ImportedAccount {
  const user = aUser({ createdAt: at, updatedAt: at, ...overrides });
  const sessionId = nodeRandom.uuid();
  const token = (name: string, parentId: string | null): RefreshToken => ({
    id: nodeRandom.uuid(),
    sessionId,
    parentId,
    tokenHash: `${name}-${sessionId}`,
    createdAt: at,
  });
  const first = token("first", null);
  const second = token("second", first.id);
  const session = aSession(user.id, {
    id: sessionId,
    refreshTokenId: second.id,
    previousRefreshTokenId: first.id,
    rotatedAt: at,
  });
  return { user, passkeys: [], sessions: [{ session, refreshTokens: [first, second] }] };
}

/** A credential of random bytes, base64url without padding (as the mapping makes them). */
function aKey(): WebAuthnKey {
  return {
    credentialId: nodeRandom.token(16),
    publicKey: nodeRandom.token(77),
    signCount: 3,
    transports: ["internal", "hybrid"],
    aaguid: "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4",
    attestationType: "none",
    backupEligible: true,
    backedUp: false,
  };
}

function aPasskey(userId: string, overrides: Partial<Passkey> = {}): Passkey {
  return {
    ...aKey(),
    id: nodeRandom.uuid(),
    userId,
    friendlyName: null,
    createdAt: at,
    updatedAt: at,
    lastUsedAt: null,
    ...overrides,
  };
}

function aWebAuthnFactor(userId: string, webauthn = aKey()): Factor {
  return {
    id: nodeRandom.uuid(),
    userId,
    type: "webauthn",
    friendlyName: "YubiKey",
    status: "verified",
    sealedSecret: null,
    phone: null,
    lastTotpStep: null,
    webauthn,
    lastChallengedAt: null,
    createdAt: at,
    updatedAt: at,
  };
}

/** An account with a passkey and a verified WebAuthn factor. */
function withWebAuthn(account = anAccount()): ImportedAccount {
  const userId = account.user.id;
  return {
    ...account,
    user: { ...account.user, factors: [aWebAuthnFactor(userId)] },
    passkeys: [aPasskey(userId, { friendlyName: "Laptop", lastUsedAt: later(5) })],
  };
}

describe.each(backends)("$name account import", (backend) => {
  const database = openedFor(backend);
  const target = () => database().accountImport;
  const stores = () => database().stores;

  it("writes users, identities and sessions with their tokens, and a second run duplicates nothing", async () => {
    const accounts = [anAccount(), anAccount({ email: null, phone: "+15550100001" })];
    const first = await target().write(accounts);
    const none = { users: 0, identities: 0, factors: 0, passkeys: 0, sessions: 0, refreshTokens: 0 };
    expect(first).toEqual({
      written: { users: 2, identities: 1, factors: 0, passkeys: 0, sessions: 2, refreshTokens: 4 },
      unchanged: none,
      kept: none,
      skipped: [],
    });
    // Nothing changed on either side: every row is unchanged, none written or kept, and a dry run says so too.
    const unchanged = { users: 2, identities: 1, factors: 0, passkeys: 0, sessions: 2, refreshTokens: 4 };
    expect(await target().check(accounts)).toEqual({ written: none, unchanged, kept: none, skipped: [] });
    expect(await target().write(accounts)).toEqual({ written: none, unchanged, kept: none, skipped: [] });
    // Same updated_at, another value: the source changed a column without touching updated_at; rewritten in place.
    const renamed = { ...accounts[0]!, user: { ...accounts[0]!.user, userMetadata: { renamed: true } } };
    const again = await target().write([renamed, accounts[1]!]);
    expect(again.written).toEqual({ ...none, users: 1 });
    expect(again.unchanged).toEqual({ ...unchanged, users: 1 });
    const user = await stores().users.findById(accounts[0]!.user.id);
    expect(user).toMatchObject({ email: accounts[0]!.user.email, identities: [{ provider: "email" }] });
    const found = await stores().refreshTokens.findForRefresh(`second-${accounts[0]!.sessions[0]!.session.id}`);
    expect(found?.session.refreshTokenId).toBe(accounts[0]!.sessions[0]!.refreshTokens[1]!.id);
  });

  it("updates what changed at the source, and keeps what changed here since", async () => {
    const account = anAccount();
    await target().write([account]);
    // Changed here after the import: a later updated_at.
    const here = await stores().users.findById(account.user.id);
    await stores().users.update({ ...here!, userMetadata: { changed: "here" }, updatedAt: later(60) });
    const fromSource = {
      ...account,
      user: { ...account.user, userMetadata: { changed: "there" }, updatedAt: later(30) },
    };
    const kept = await target().write([fromSource]);
    expect(kept.kept.users).toBe(1);
    expect((await stores().users.findById(account.user.id))?.userMetadata).toEqual({ changed: "here" });
    const newer = { ...account, user: { ...account.user, userMetadata: { changed: "there" }, updatedAt: later(90) } };
    expect((await target().write([newer])).written.users).toBe(1);
    expect((await stores().users.findById(account.user.id))?.userMetadata).toEqual({ changed: "there" });
  });

  it("keeps a session refreshed here since, and does not bring the source's newer tokens into it", async () => {
    const account = anAccount();
    await target().write([account]);
    const [imported] = account.sessions;
    const refreshedHere = { ...imported!.session, rotatedAt: later(60), updatedAt: later(60) };
    await stores().sessions.update(refreshedHere);
    // Meanwhile the source rotated it too: a third token, current there.
    const third: RefreshToken = {
      ...imported!.refreshTokens[1]!,
      id: nodeRandom.uuid(),
      parentId: imported!.refreshTokens[1]!.id,
      tokenHash: `third-${imported!.session.id}`,
    };
    const fromSource = {
      ...account,
      sessions: [
        {
          session: { ...imported!.session, refreshTokenId: third.id, updatedAt: later(30) },
          refreshTokens: [...imported!.refreshTokens, third],
        },
      ],
    };
    const report = await target().write([fromSource]);
    expect(report.kept).toMatchObject({ users: 0, sessions: 1, refreshTokens: 1 });
    expect(report.unchanged).toMatchObject({ users: 1, sessions: 0, refreshTokens: 2 });
    expect(await stores().refreshTokens.findForRefresh(third.tokenHash)).toBeNull();
    const here = await stores().refreshTokens.findForRefresh(imported!.refreshTokens[1]!.tokenHash);
    expect(here?.session).toMatchObject({ refreshTokenId: imported!.refreshTokens[1]!.id, updatedAt: later(60) });
  });

  it("skips, with why, an account whose address or identity another user holds, and writes the rest", async () => {
    const holder = anAccount();
    await target().write([holder]);
    const sameEmail = anAccount({ email: holder.user.email });
    const fine = anAccount();
    const twin = anAccount({ email: fine.user.email });
    const report = await target().write([sameEmail, fine, twin]);
    expect(report.skipped).toEqual([
      { userId: sameEmail.user.id, reason: `email ${holder.user.email} belongs to another user (${holder.user.id})` },
      { userId: twin.user.id, reason: `email ${fine.user.email} belongs to another user (${fine.user.id})` },
    ]);
    expect(report.written.users).toBe(1);
    expect(await stores().users.findById(sameEmail.user.id)).toBeNull();
    expect(await stores().users.findById(fine.user.id)).not.toBeNull();
  });

  it("skips an account whose provider identity another user holds here", async () => {
    const holder = anAccount();
    const github = { ...holder.user.identities[0]!, id: nodeRandom.uuid(), provider: "github", providerId: "gh-42" };
    await target().write([{ ...holder, user: { ...holder.user, identities: [...holder.user.identities, github] } }]);
    const other = anAccount();
    const taken = { ...github, id: nodeRandom.uuid(), userId: other.user.id };
    const report = await target().write([{ ...other, user: { ...other.user, identities: [taken] } }]);
    expect(report.skipped).toEqual([
      { userId: other.user.id, reason: `github identity gh-42 belongs to another user (${holder.user.id})` },
    ]);
  });

  it("loses only the account a constraint refuses when the checks did not foresee it", async () => {
    const good = anAccount();
    const bad = anAccount();
    // A session of nobody here: its foreign key refuses it, and the batch with it.
    const [imported] = bad.sessions;
    const broken = {
      ...bad,
      sessions: [{ ...imported!, session: { ...imported!.session, userId: nodeRandom.uuid() } }],
    };
    const report = await target().write([good, broken]);
    expect(report.skipped.map((skip) => skip.userId)).toEqual([bad.user.id]);
    expect(report.skipped[0]!.reason).toBeTruthy();
    expect(await stores().users.findById(good.user.id)).not.toBeNull();
    expect(await stores().users.findById(bad.user.id)).toBeNull();
  });

  it("writes passkeys and WebAuthn factors as the stores read them, once, and keeps those used here since", async () => {
    const account = withWebAuthn();
    const [passkey] = account.passkeys;
    const factor = account.user.factors[0]!;
    const first = await target().write([account]);
    expect(first.written).toMatchObject({ factors: 1, passkeys: 1 });
    expect(await stores().passkeys.listOfUser(account.user.id)).toEqual([passkey]);
    expect(await stores().passkeys.findByCredentialId(passkey!.credentialId)).toEqual(passkey);
    expect((await stores().users.findById(account.user.id))?.factors).toEqual([factor]);
    const again = await target().check([account]);
    expect(again.written).toMatchObject({ factors: 0, passkeys: 0 });
    expect(again.unchanged).toMatchObject({ factors: 1, passkeys: 1 });
    expect((await target().write([account])).unchanged).toMatchObject({ factors: 1, passkeys: 1 });
    // Signed in with here since: the counter and use moved on, and the source's older row does not undo them.
    const used = { ...passkey!, signCount: 9, lastUsedAt: later(60), updatedAt: later(60) };
    await stores().passkeys.recordUse(used);
    const renamedThere = { ...passkey!, friendlyName: "Renamed", updatedAt: later(30) };
    const kept = await target().write([{ ...account, passkeys: [renamedThere] }]);
    expect(kept.kept).toMatchObject({ passkeys: 1 });
    expect(await stores().passkeys.find(account.user.id, passkey!.id)).toEqual(used);
    const newer = { ...passkey!, friendlyName: "Renamed", updatedAt: later(90) };
    expect((await target().write([{ ...account, passkeys: [newer] }])).written.passkeys).toBe(1);
    expect(await stores().passkeys.find(account.user.id, passkey!.id)).toEqual(newer);
  });

  it("skips an account whose passkey or WebAuthn factor credential another user holds here, or in the batch", async () => {
    const holder = withWebAuthn();
    await target().write([holder]);
    const heldPasskey = holder.passkeys[0]!.credentialId;
    const heldFactor = holder.user.factors[0]!.webauthn!.credentialId;
    const other = anAccount();
    const byPasskey = { ...other, passkeys: [aPasskey(other.user.id, { credentialId: heldPasskey })] };
    // A credential is one key whether a passkey or a factor holds it: its user handle is its user's id.
    const third = anAccount();
    const asFactor = aWebAuthnFactor(third.user.id, { ...aKey(), credentialId: heldPasskey });
    const byFactor = { ...third, user: { ...third.user, factors: [asFactor] } };
    const fourth = anAccount();
    const byFactorKey = { ...fourth, passkeys: [aPasskey(fourth.user.id, { credentialId: heldFactor })] };
    const fine = withWebAuthn();
    const twin = anAccount();
    const byTwin = { ...twin, passkeys: [aPasskey(twin.user.id, { credentialId: fine.passkeys[0]!.credentialId })] };
    const check = await target().check([byPasskey, byFactor, byFactorKey, fine, byTwin]);
    const report = await target().write([byPasskey, byFactor, byFactorKey, fine, byTwin]);
    const why = (id: string, holderId: string) => `WebAuthn credential ${id} belongs to another user (${holderId})`;
    expect(report.skipped).toEqual([
      { userId: other.user.id, reason: why(heldPasskey, holder.user.id) },
      { userId: third.user.id, reason: why(heldPasskey, holder.user.id) },
      { userId: fourth.user.id, reason: why(heldFactor, holder.user.id) },
      { userId: twin.user.id, reason: why(fine.passkeys[0]!.credentialId, fine.user.id) },
    ]);
    expect(check.skipped).toEqual(report.skipped);
    expect(report.written).toMatchObject({ users: 1, factors: 1, passkeys: 1 });
    expect(await stores().users.findById(other.user.id)).toBeNull();
    expect(await stores().passkeys.listOfUser(fine.user.id)).toEqual(fine.passkeys);
  });

  it("checks without writing in a dry run", async () => {
    const holder = anAccount();
    await target().write([holder]);
    const fine = anAccount();
    const report = await target().check([anAccount({ email: holder.user.email }), fine]);
    expect(report.written).toEqual({ users: 1, identities: 1, factors: 0, passkeys: 0, sessions: 1, refreshTokens: 2 });
    expect(report.skipped).toHaveLength(1);
    expect(await stores().users.findById(fine.user.id)).toBeNull();
  });
});

describe("a dry run before the first migration", () => {
  it("finds no one in the way, and creates nothing", async () => {
    const client = await openEmbeddedTestDatabase();
    const postgres = await createPostgres({ sharedEmbedded: client, namespace: randomNamespace(), maxPoolSize: 0 });
    try {
      const report = await postgres.accountImport.check([anAccount()]);
      expect(report).toMatchObject({ written: { users: 1 }, skipped: [] });
      await expect(postgres.stores.users.findById(nodeRandom.uuid())).rejects.toThrow();
    } finally {
      await client.close();
    }
  });
});
