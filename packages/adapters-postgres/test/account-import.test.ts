import type { Factor, ImportedAccount, Passkey, RefreshToken, SsoProvider, User, WebAuthnKey } from "@latchkey/domain";
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

/** A SAML provider as the import maps GoTrue's: its EntityID and domains unique unless given. */
function aProvider(overrides: Partial<SsoProvider> = {}): SsoProvider {
  const id = nodeRandom.uuid();
  return {
    id,
    resourceId: null,
    disabled: null,
    saml: {
      entityId: `https://idp-${id}.test/saml`,
      metadataXml: `<md:EntityDescriptor entityID="https://idp-${id}.test/saml">\r\n</md:EntityDescriptor>\n`,
      metadataUrl: null,
      attributeMapping: { keys: { email: { name: "mail" } } },
      nameIdFormat: null,
    },
    domains: [`${id.slice(0, 8)}.test`],
    createdAt: at,
    updatedAt: later(10),
    ...overrides,
  };
}

/** An SSO user of the provider: its identity `sso:<provider id>`, its session amr `sso/saml`. */
function anSsoAccount(providerId: string, email: string): ImportedAccount {
  const account = anAccount({ email, isSsoUser: true, passwordHash: null });
  const subject = nodeRandom.token(8);
  const identity = {
    ...account.user.identities[0]!,
    provider: `sso:${providerId}`,
    providerId: subject,
    identityData: { sub: subject, email },
  };
  const [imported] = account.sessions;
  return {
    ...account,
    user: { ...account.user, identities: [identity] },
    sessions: [{ ...imported!, session: { ...imported!.session, amr: [{ method: "sso/saml", at }] } }],
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

  it("writes SSO providers with their ids and domains, lowercased, and leaves one already here as it is", async () => {
    const acme = aProvider({
      resourceId: `acme-${nodeRandom.token(6)}`,
      disabled: true,
      domains: ["Acme.test", " corp.acme.TEST"],
      saml: { ...aProvider().saml, nameIdFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" },
    });
    const bare = aProvider({ domains: [] });
    expect(await target().checkSsoProviders([acme, bare])).toEqual({ written: 2, alreadyHere: 0, skipped: [] });
    expect(await stores().ssoProviders.find(acme.id)).toBeNull();
    expect(await target().writeSsoProviders([acme, bare])).toEqual({ written: 2, alreadyHere: 0, skipped: [] });
    expect(await stores().ssoProviders.find(acme.id)).toEqual({ ...acme, domains: ["acme.test", "corp.acme.test"] });
    expect(await stores().ssoProviders.find(bare.id)).toEqual(bare);
    // Changed here since: a later run leaves it as it is, whatever the source has.
    const changedHere = { ...acme, disabled: false, domains: ["acme.test"], updatedAt: later(60) };
    await stores().ssoProviders.update(changedHere);
    const renamed = { ...acme, resourceId: `${acme.resourceId}-renamed`, updatedAt: later(90) };
    expect(await target().checkSsoProviders([renamed, bare])).toEqual({ written: 0, alreadyHere: 2, skipped: [] });
    expect(await target().writeSsoProviders([renamed, bare])).toEqual({ written: 0, alreadyHere: 2, skipped: [] });
    expect(await stores().ssoProviders.find(acme.id)).toEqual(changedHere);
  });

  it("skips, with why, an SSO provider whose EntityID, domain or resource id another provider here or before it holds", async () => {
    const name = nodeRandom.token(6).toLowerCase();
    const holder = aProvider({ resourceId: name, domains: [`${name}.test`] });
    await stores().ssoProviders.insert(holder);
    const sameEntity = aProvider({ saml: { ...aProvider().saml, entityId: holder.saml.entityId } });
    const sameDomain = aProvider({ domains: [`other-${name}.test`, `${name.toUpperCase()}.test`] });
    const sameResource = aProvider({ resourceId: name.toUpperCase() });
    const fine = aProvider({ domains: [`fine-${name}.test`] });
    const twin = aProvider({ domains: [`Fine-${name}.test`] });
    const providers = [sameEntity, sameDomain, sameResource, fine, twin];
    const check = await target().checkSsoProviders(providers);
    const report = await target().writeSsoProviders(providers);
    expect(report).toEqual({
      written: 1,
      alreadyHere: 0,
      skipped: [
        {
          providerId: sameEntity.id,
          reason: `its EntityID ${holder.saml.entityId} is that of the SSO provider ${holder.id} here`,
        },
        { providerId: sameDomain.id, reason: `its domain ${name}.test is held by the SSO provider ${holder.id} here` },
        {
          providerId: sameResource.id,
          reason: `its resource_id ${name.toUpperCase()} is that of the SSO provider ${holder.id} here`,
        },
        { providerId: twin.id, reason: `its domain fine-${name}.test is held by the SSO provider ${fine.id} here` },
      ],
    });
    expect(check).toEqual(report);
    for (const skipped of [sameEntity, sameDomain, sameResource, twin]) {
      expect(await stores().ssoProviders.find(skipped.id)).toBeNull();
    }
    expect(await stores().ssoProviders.findByDomain(`other-${name}.test`)).toBeNull();
    expect(await stores().ssoProviders.findByDomain(`fine-${name}.test`)).toMatchObject({ id: fine.id });
  });

  it("writes SSO users whose email another user holds, SSO or not, here or in the batch", async () => {
    const provider = aProvider();
    await target().writeSsoProviders([provider]);
    const holder = anAccount();
    await target().write([holder]);
    const email = holder.user.email!;
    const first = anSsoAccount(provider.id, email);
    const second = anSsoAccount(provider.id, email);
    // A provider not here (deleted at the source): its user comes all the same.
    const orphan = anSsoAccount(nodeRandom.uuid(), email);
    const plain = anAccount({ email: "plain-after-sso@example.com" });
    const accounts = [first, second, orphan, plain];
    const check = await target().check(accounts);
    const report = await target().write(accounts);
    expect(report.skipped).toEqual([]);
    expect(check).toEqual(report);
    expect(report.written).toMatchObject({ users: 4, identities: 4, sessions: 4 });
    const found = await stores().users.findWithSession(first.user.id, first.sessions[0]!.session.id);
    expect(found?.user).toMatchObject({ isSsoUser: true, email });
    expect(found?.user.identities).toEqual([expect.objectContaining({ provider: `sso:${provider.id}` })]);
    expect(found?.session?.amr).toEqual([{ method: "sso/saml", at }]);
    expect((await stores().users.findByEmail(email))?.id).toBe(holder.user.id);
    // A user here (not SSO) still cannot take the email of another one that is not SSO.
    const clash = await target().write([anAccount({ email })]);
    expect(clash.skipped).toHaveLength(1);
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
      const providers = await postgres.accountImport.checkSsoProviders([aProvider(), aProvider()]);
      expect(providers).toEqual({ written: 2, alreadyHere: 0, skipped: [] });
      await expect(postgres.stores.users.findById(nodeRandom.uuid())).rejects.toThrow();
    } finally {
      await client.close();
    }
  });
});
