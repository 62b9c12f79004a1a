import { randomBytes, randomUUID } from "node:crypto";
import { createFactorSecrets, createSecrets } from "@latchkey/adapters-crypto";
import { missingPostgresServer, testDatabaseUrl } from "@latchkey/adapters-postgres/testing";
import type { AccountImportTarget, ImportBatchReport, ImportedAccount } from "@latchkey/domain";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GotrueSource, openGotrueSource, runImport, type SourceBatch } from "../src/index.ts";
import { createGotrueDatabase, type GotrueDatabase } from "../src/testing/index.ts";

const context = {
  secrets: createSecrets("an-import-test-secret-of-some-length-0123"),
  factorSecrets: createFactorSecrets({ keyId: "ours", key: randomBytes(32), decryptionKeys: new Map() }),
};
const ZERO = { users: 0, identities: 0, factors: 0, sessions: 0, refreshTokens: 0 };

/** Writes nothing: keeps the accounts, and says each was written. */
function recordingTarget(write?: (accounts: readonly ImportedAccount[]) => Promise<void>) {
  const written: ImportedAccount[] = [];
  const report = (accounts: readonly ImportedAccount[]): ImportBatchReport => ({
    written: { ...ZERO, users: accounts.length },
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
        sessions: [],
        refreshTokens: [],
        amrClaims: [],
        lastRead: page.at(-1) ?? null,
        end: page.length < limit,
      };
      return batch;
    },
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

  it("walks past a batch holding only another instance's users, and reads each user's identities", async () => {
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
      expect(summary).toMatchObject({ usersRead: 2, lastUserId: id(5) });
      expect(progress).toEqual([id(2), id(4), id(5)]);
    } finally {
      await source.close();
    }
  });
});
