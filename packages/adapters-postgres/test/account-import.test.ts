import type { ImportedAccount, RefreshToken, User } from "@latchkey/domain";
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
  return { user, sessions: [{ session, refreshTokens: [first, second] }] };
}

describe.each(backends)("$name account import", (backend) => {
  const database = openedFor(backend);
  const target = () => database().accountImport;
  const stores = () => database().stores;

  it("writes users, identities and sessions with their tokens, and a second run duplicates nothing", async () => {
    const accounts = [anAccount(), anAccount({ email: null, phone: "+15550100001" })];
    const first = await target().write(accounts);
    const none = { users: 0, identities: 0, factors: 0, sessions: 0, refreshTokens: 0 };
    expect(first).toEqual({
      written: { users: 2, identities: 1, factors: 0, sessions: 2, refreshTokens: 4 },
      unchanged: none,
      kept: none,
      skipped: [],
    });
    // Nothing changed on either side: every row is unchanged, none written or kept, and a dry run says so too.
    const unchanged = { users: 2, identities: 1, factors: 0, sessions: 2, refreshTokens: 4 };
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

  it("checks without writing in a dry run", async () => {
    const holder = anAccount();
    await target().write([holder]);
    const fine = anAccount();
    const report = await target().check([anAccount({ email: holder.user.email }), fine]);
    expect(report.written).toEqual({ users: 1, identities: 1, factors: 0, sessions: 1, refreshTokens: 2 });
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
