import { randomBytes, randomUUID } from "node:crypto";
import { createFactorSecrets, createSecrets } from "@latchkey/adapters-crypto";
import {
  createTestDatabase,
  missingPostgresServer,
  type TestDatabase,
  testDatabaseUrl,
} from "@latchkey/adapters-postgres/testing";
import {
  type AccountImportTarget,
  type ImportBatchReport,
  type ImportedAccount,
  refreshTokenDigest,
} from "@latchkey/domain";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type GotrueSource,
  type ImportSummary,
  openGotrueSource,
  runImport,
  type SourceBatch,
  summaryText,
} from "../src/index.ts";
import {
  type AwkwardFixture,
  createGotrueDatabase,
  type GotrueDatabase,
  seedAwkwardFixture,
} from "../src/testing/index.ts";

const context = {
  secrets: createSecrets("an-import-test-secret-of-some-length-0123"),
  factorSecrets: createFactorSecrets({ keyId: "ours", key: randomBytes(32), decryptionKeys: new Map() }),
};
const ZERO = { users: 0, identities: 0, factors: 0, passkeys: 0, sessions: 0, refreshTokens: 0 };

/** Writes nothing: keeps the accounts, and says each was written. */
function recordingTarget(write?: (accounts: readonly ImportedAccount[]) => Promise<void>) {
  const written: ImportedAccount[] = [];
  const report = (accounts: readonly ImportedAccount[]): ImportBatchReport => ({
    written: { ...ZERO, users: accounts.length },
    unchanged: ZERO,
    kept: ZERO,
    skipped: [],
  });
  const target: AccountImportTarget = {
    async write(accounts) {
      await write?.(accounts);
      written.push(...accounts);
      return report(accounts);
    },
    check: async (accounts) => report(accounts),
    writeSsoProviders: async (providers) => ({ written: providers.length, alreadyHere: 0, skipped: [] }),
    checkSsoProviders: async (providers) => ({ written: providers.length, alreadyHere: 0, skipped: [] }),
    writeAudit: async () => 0,
  };
  return { target, written };
}

/** `pages` batches of two users each, read from memory; `log` hears each read's start and end. */
function pagedSource(pages: number, log: string[], failRead?: number): GotrueSource {
  const ids = Array.from({ length: pages * 2 }, (_, i) => `00000000-0000-4000-8000-${String(i + 1).padStart(12, "0")}`);
  return {
    countUsers: async () => ids.length,
    async readBatch(afterId, limit) {
      const from = afterId === null ? 0 : ids.indexOf(afterId) + 1;
      log.push(`read ${from / limit}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (from / limit === failRead) throw new Error("the source went away");
      const page = ids.slice(from, from + limit);
      log.push(`read ${from / limit} done`);
      const batch: SourceBatch = {
        users: page.map((id) => ({ id, email: `${id}@example.com`, created_at: new Date() })),
        identities: [],
        factors: [],
        passkeys: [],
        sessions: [],
        refreshTokens: [],
        amrClaims: [],
        lastRead: page.at(-1) ?? null,
        end: page.length < limit,
      };
      return batch;
    },
    readSsoProviders: async () => ({ providers: [], samlProviders: [], domains: [] }),
    readAuditBatch: async () => [],
    close: async () => undefined,
  };
}

describe("runImport", () => {
  it("reads the next batch while the one before is written, and writes them in order", async () => {
    const log: string[] = [];
    let batch = 0;
    const { target, written } = recordingTarget(async () => {
      const at = batch++;
      log.push(`write ${at}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      log.push(`write ${at} done`);
    });
    const summary = await runImport({ source: pagedSource(3, log), target, context, batchSize: 2 });
    expect(summary.usersRead).toBe(6);
    expect(written.map((account) => account.user.id)).toEqual(
      [...Array(6).keys()].map((i) => `00000000-0000-4000-8000-${String(i + 1).padStart(12, "0")}`),
    );
    // The second batch is read before the first one's write ends.
    expect(log.indexOf("read 1 done")).toBeLessThan(log.indexOf("write 0 done"));
  });

  it("prepares the target once, after the first batch is read and before it is written", async () => {
    const log: string[] = [];
    const { target } = recordingTarget(async () => {
      log.push("write");
    });
    const beforeFirstWrite = async () => {
      log.push("prepare");
    };
    await runImport({ source: pagedSource(2, log), target, context, batchSize: 2, beforeFirstWrite });
    expect(log.filter((entry) => entry === "prepare" || entry === "write")).toEqual(["prepare", "write", "write"]);
    expect(log.indexOf("prepare")).toBeGreaterThan(log.indexOf("read 0 done"));
  });

  it("leaves the target untouched when the first batch cannot be read, and a dry run never prepares it", async () => {
    const log: string[] = [];
    const { target, written } = recordingTarget();
    const beforeFirstWrite = async () => {
      log.push("prepare");
    };
    await expect(
      runImport({ source: pagedSource(2, log, 0), target, context, batchSize: 2, beforeFirstWrite }),
    ).rejects.toThrow("the source went away");
    await runImport({ source: pagedSource(2, log), target, context, batchSize: 2, beforeFirstWrite, dryRun: true });
    expect(log).not.toContain("prepare");
    expect(written).toEqual([]);
  });

  it("fails with the write's error when a write fails while the next batch is being read", async () => {
    const log: string[] = [];
    const { target } = recordingTarget(async () => {
      throw new Error("the target refused");
    });
    await expect(runImport({ source: pagedSource(3, log, 1), target, context, batchSize: 2 })).rejects.toThrow(
      "the target refused",
    );
  });
});

describeIfAvailable(missingPostgresServer(), "runImport from a GoTrue database", () => {
  let db: GotrueDatabase;
  beforeAll(async () => {
    db = await createGotrueDatabase({ adminUrl: testDatabaseUrl()! });
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("walks past a batch of another instance's users, counting each as skipped, and reads each user's identities", async () => {
    const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
    const otherInstance = randomUUID();
    for (const n of [1, 2, 4]) {
      await db.insertUser({ id: id(n), instance_id: otherInstance, email: `other-${n}@example.com` });
    }
    for (const n of [3, 5]) {
      await db.insertUser({ id: id(n), email: `user-${n}@example.com` });
      await db.insertIdentity({
        user_id: id(n),
        provider: "email",
        provider_id: id(n),
        identity_data: { sub: id(n), email: `user-${n}@example.com` },
      });
    }
    const source = await openGotrueSource(db.url);
    try {
      const { target, written } = recordingTarget();
      const progress: (string | null)[] = [];
      const summary = await runImport({
        source,
        target,
        context,
        batchSize: 2,
        onProgress: (step) => progress.push(step.lastUserId),
      });
      expect(written.map((account) => [account.user.id, account.user.identities.map((i) => i.providerId)])).toEqual([
        [id(3), [id(3)]],
        [id(5), [id(5)]],
      ]);
      const why = `of another instance (instance_id ${otherInstance}): GoTrue serves only the nil instance's users`;
      expect(summary).toMatchObject({ usersRead: 5, lastUserId: id(5), skippedCount: 3 });
      expect(summary.skipped).toEqual([1, 2, 4].map((n) => ({ userId: id(n), reason: why })));
      expect(await source.countUsers()).toBe(5);
      expect(progress).toEqual([id(2), id(4), id(5)]);
    } finally {
      await source.close();
    }
  });
});

describeIfAvailable(missingPostgresServer(), "runImport into Latchkey's tables, twice", () => {
  let gotrue: GotrueDatabase;
  let fixture: AwkwardFixture;
  let latchkey: TestDatabase;
  const importOnce = async () => {
    const source = await openGotrueSource(gotrue.url);
    try {
      return await runImport({ source, target: latchkey.postgres.accountImport, context });
    } finally {
      await source.close();
    }
  };
  /** The summary's lines of counts, one per kind of row. */
  const counts = (summary: ImportSummary) => summaryText(summary).split("\n").slice(1, 7);

  beforeAll(async () => {
    gotrue = await createGotrueDatabase({ adminUrl: testDatabaseUrl()! });
    fixture = await seedAwkwardFixture(gotrue);
    latchkey = await createTestDatabase();
  });
  afterAll(async () => {
    await gotrue?.drop();
    await latchkey?.close();
  });

  it("says on a second run that nothing changed, and then that only what changed here is kept", async () => {
    const first = await importOnce();
    expect(first.written.users).toBeGreaterThan(10);
    const again = await importOnce();
    const written = (key: keyof typeof first.written) => first.written[key].toLocaleString("en-US");
    expect(counts(again)).toEqual([
      `  users: 0 written, ${written("users")} unchanged`,
      `  identities: 0 written, ${written("identities")} unchanged`,
      `  MFA factors: 0 written, ${written("factors")} unchanged`,
      `  passkeys: 0 written, ${written("passkeys")} unchanged`,
      `  sessions: 0 written, ${written("sessions")} unchanged`,
      `  refresh tokens: 0 written, ${written("refreshTokens")} unchanged`,
    ]);

    // A session refreshed here, and a user changed in GoTrue since.
    const { stores } = latchkey.postgres;
    const found = await stores.refreshTokens.findForRefresh(
      refreshTokenDigest(context.secrets, fixture.anonymous.refreshToken),
    );
    await stores.sessions.update({ ...found!.session, updatedAt: new Date() });
    await gotrue.client.query(
      `update auth.users set raw_user_meta_data = '{"renamed":true}', updated_at = now() where id = $1`,
      [fixture.withPassword.id],
    );
    const third = await importOnce();
    expect(third.written).toMatchObject({ users: 1, sessions: 0, refreshTokens: 0 });
    expect(third.kept).toEqual({ users: 0, identities: 0, factors: 0, passkeys: 0, sessions: 1, refreshTokens: 0 });
    expect(counts(third)[4]).toBe(
      `  sessions: 0 written, ${first.written.sessions - 1} unchanged, 1 kept (changed here since)`,
    );
  });

  it("brings passkeys and verified WebAuthn factors from GoTrue's tables, and drops an unverified factor", async () => {
    const summary = await importOnce();
    const { withWebAuthn } = fixture;
    const { stores } = latchkey.postgres;
    expect(await stores.passkeys.listOfUser(withWebAuthn.id)).toEqual([
      expect.objectContaining({
        id: withWebAuthn.passkeyId,
        credentialId: withWebAuthn.passkeyCredentialId,
        friendlyName: null,
        transports: ["internal"],
        attestationType: "none",
        lastUsedAt: expect.any(Date),
      }),
    ]);
    const user = await stores.users.findById(withWebAuthn.id);
    expect(user?.factors).toEqual([
      expect.objectContaining({
        id: withWebAuthn.factorId,
        type: "webauthn",
        status: "verified",
        webauthn: expect.objectContaining({ credentialId: withWebAuthn.factorCredentialId, aaguid: null }),
      }),
    ]);
    expect(summary.dropped.factors).toContain(
      `${withWebAuthn.unverifiedFactorId}: an unverified WebAuthn factor (no credential registered yet)`,
    );
    const found = await stores.users.findWithSession(withWebAuthn.id, withWebAuthn.sessionId);
    expect(found?.session?.amr.map((entry) => entry.method)).toEqual(["passkey"]);
  });

  it("brings GoTrue's soft-deleted user soft-deleted, counted, and names another instance's user as skipped", async () => {
    const summary = await importOnce();
    const deleted = await latchkey.postgres.stores.users.findById(fixture.softDeleted.id);
    expect(deleted).toMatchObject({ email: null, phone: null, newEmail: null, passwordHash: null, identities: [] });
    expect(deleted?.deletedAt).toBeInstanceOf(Date);
    expect(summary.softDeleted).toBe(1);
    const text = summaryText(summary);
    expect(text).toContain("Soft-deleted in GoTrue, and here too: 1 user");
    expect(text).toContain(
      `  ${fixture.otherInstance.id}: of another instance (instance_id ${fixture.otherInstance.instanceId}): GoTrue serves only the nil instance's users`,
    );
    expect(text).toContain("Skipped 1 user:");
  });

  it("brings the SSO providers before their users, as GoTrue has them, and leaves them as they are on a later run", async () => {
    const summary = await importOnce();
    // The first test's runs brought them; this one finds them here.
    expect(summary.ssoProviders).toEqual({ read: 2, written: 0, alreadyHere: 2, skipped: [] });
    expect(summaryText(summary)).toContain("  SSO providers: 0 written, 2 already here (left as they are)");
    const { stores } = latchkey.postgres;
    const { sso } = fixture;
    expect(await stores.ssoProviders.find(sso.provider.id)).toEqual({
      id: sso.provider.id,
      resourceId: sso.provider.resourceId,
      disabled: null,
      saml: {
        entityId: sso.provider.entityId,
        metadataXml: sso.provider.metadataXml,
        metadataUrl: null,
        attributeMapping: sso.provider.attributeMapping,
        nameIdFormat: sso.provider.nameIdFormat,
      },
      domains: ["acme.test", "corp.acme.test"],
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    expect(await stores.ssoProviders.findByDomain("ACME.test")).toMatchObject({ id: sso.provider.id });
    expect(await stores.ssoProviders.find(sso.disabledProvider.id)).toMatchObject({ disabled: true, domains: [] });
    // Three SSO users, two of them with withPassword's email, and one whose provider GoTrue deleted.
    for (const id of [sso.id, sso.sameEmailId, sso.orphanId]) {
      expect(await stores.users.findById(id)).toMatchObject({ isSsoUser: true, deletedAt: null });
    }
    const user = await stores.users.findById(sso.id);
    expect(user?.identities).toEqual([
      expect.objectContaining({ provider: `sso:${sso.provider.id}`, providerId: sso.subject }),
    ]);
    expect((await stores.users.findByEmail(sso.email))?.id).toBe(fixture.withPassword.id);
    const found = await stores.users.findWithSession(sso.id, sso.sessionId);
    expect(found?.session?.amr.map((entry) => entry.method)).toEqual(["sso/saml"]);
    expect(summary.skipped.map((skip) => skip.userId)).not.toContain(sso.id);
  });
});
