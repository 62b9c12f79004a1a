import type { AccountImportTarget, ImportBatchReport, ImportedAccount, ImportedCounts } from "@latchkey/domain";
import { and, getTableColumns, inArray, not, or, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Database, RunInTransaction } from "../database.ts";
import { toFactorRow } from "../rows/factor-row.ts";
import { toIdentityRow } from "../rows/identity-row.ts";
import { toRefreshTokenRow } from "../rows/refresh-token-row.ts";
import { toSessionRow } from "../rows/session-row.ts";
import { toUserRow } from "../rows/user-row.ts";
import type { Schema } from "../schema/create-schema.ts";

const ZERO: ImportedCounts = { users: 0, identities: 0, factors: 0, sessions: 0, refreshTokens: 0 };

interface Skip {
  readonly userId: string;
  readonly reason: string;
}

/**
 * The AccountImportTarget on Latchkey's tables. Each kind of row is upserted by id with "newer wins": an existing
 * row is replaced only when the imported one's updated_at is not older, so a second run brings what changed at the
 * source and keeps what changed here (a session refreshed here, a password changed here). Refresh tokens are
 * inserted once (their ids are derived from the tokens). Accounts whose address or identity another user here
 * holds are skipped before anything is written; should the batch still fail, each account is retried alone, so
 * that one bad row costs only itself.
 */
export function createAccountImport(db: Database, transaction: RunInTransaction, schema: Schema): AccountImportTarget {
  const { users, identities, mfaFactors, sessions, refreshTokens } = schema;

  /** Accounts whose email, phone or identity is another user's here, or another account's of the batch. */
  async function conflicts(runner: Database, accounts: readonly ImportedAccount[]): Promise<Skip[]> {
    const ids = accounts.map((account) => account.user.id);
    const emails = accounts.flatMap((account) => (account.user.email ? [account.user.email] : []));
    const phones = accounts.flatMap((account) => (account.user.phone ? [account.user.phone] : []));
    const pairs = accounts.flatMap((account) => account.user.identities);
    const skips: Skip[] = [];
    const taken = new Map<string, string>();
    if (emails.length > 0 || phones.length > 0) {
      const holders = await runner
        .select({ id: users.id, email: users.email, phone: users.phone })
        .from(users)
        .where(
          and(
            or(
              emails.length > 0 ? inArray(users.email, emails) : undefined,
              phones.length > 0 ? inArray(users.phone, phones) : undefined,
            ),
            not(inArray(users.id, ids)),
          ),
        );
      for (const holder of holders) {
        if (holder.email) taken.set(`email:${holder.email}`, holder.id);
        if (holder.phone) taken.set(`phone:${holder.phone}`, holder.id);
      }
    }
    if (pairs.length > 0) {
      // Two array parameters joined as rows: the (provider, provider_id) unique index answers each, whatever the
      // table's size.
      const wanted = sql`SELECT * FROM unnest(${sql.param(pairs.map((identity) => identity.provider))}::text[], ${sql.param(pairs.map((identity) => identity.providerId))}::text[])`;
      const holders = await runner
        .select({ userId: identities.userId, provider: identities.provider, providerId: identities.providerId })
        .from(identities)
        .where(
          and(
            sql`(${identities.provider}, ${identities.providerId}) IN (${wanted})`,
            not(inArray(identities.userId, ids)),
          ),
        );
      for (const holder of holders) taken.set(`identity:${holder.provider}:${holder.providerId}`, holder.userId);
    }
    // Provider names have no colon, so `provider:id` names one identity whatever its id holds.
    for (const account of accounts) {
      const { user } = account;
      const keys = [
        ...(user.email ? [[`email:${user.email}`, `email ${user.email}`]] : []),
        ...(user.phone ? [[`phone:${user.phone}`, `phone ${user.phone}`]] : []),
        ...user.identities.map((identity) => [
          `identity:${identity.provider}:${identity.providerId}`,
          `${identity.provider} identity ${identity.providerId}`,
        ]),
      ] as [string, string][];
      const clash = keys.find(([key]) => taken.has(key) && taken.get(key) !== user.id);
      if (clash) {
        skips.push({ userId: user.id, reason: `${clash[1]} belongs to another user (${taken.get(clash[0])})` });
        continue;
      }
      // Later accounts of the batch see this one's addresses as taken.
      for (const [key] of keys) taken.set(key, user.id);
    }
    return skips;
  }

  async function writeAll(
    runner: Database,
    accounts: readonly ImportedAccount[],
  ): Promise<[ImportedCounts, ImportedCounts]> {
    if (accounts.length === 0) return [ZERO, ZERO];
    const allIdentities = accounts.flatMap((account) => account.user.identities);
    const allFactors = accounts.flatMap((account) => account.user.factors);
    const allSessions = accounts.flatMap((account) => account.sessions);
    const written: ImportedCounts = {
      users: await upsert(
        runner,
        users,
        accounts.map((account) => toUserRow(account.user)),
      ),
      identities: await upsert(runner, identities, allIdentities.map(toIdentityRow)),
      factors: await upsert(runner, mfaFactors, allFactors.map(toFactorRow)),
      sessions: await upsert(
        runner,
        sessions,
        allSessions.map((imported) => toSessionRow(imported.session)),
      ),
      refreshTokens: await insertNew(
        runner,
        refreshTokens,
        allSessions.flatMap((imported) => imported.refreshTokens.map(toRefreshTokenRow)),
      ),
    };
    const kept: ImportedCounts = {
      users: accounts.length - written.users,
      identities: allIdentities.length - written.identities,
      factors: allFactors.length - written.factors,
      sessions: allSessions.length - written.sessions,
      refreshTokens:
        allSessions.reduce((sum, imported) => sum + imported.refreshTokens.length, 0) - written.refreshTokens,
    };
    return [written, kept];
  }

  async function writeBatch(accounts: readonly ImportedAccount[]): Promise<ImportBatchReport> {
    try {
      return await transaction(async (tx) => {
        const skipped = await conflicts(tx, accounts);
        const skippedIds = new Set(skipped.map((skip) => skip.userId));
        const [written, kept] = await writeAll(
          tx,
          accounts.filter((account) => !skippedIds.has(account.user.id)),
        );
        return { written, kept, skipped };
      });
    } catch (error) {
      if (accounts.length === 1) {
        return { written: ZERO, kept: ZERO, skipped: [{ userId: accounts[0]!.user.id, reason: reasonOf(error) }] };
      }
      // One account the checks did not foresee: each alone, so that only it is lost.
      const reports: ImportBatchReport[] = [];
      for (const account of accounts) reports.push(await writeBatch([account]));
      return merge(reports);
    }
  }

  return {
    write: writeBatch,
    writeAudit: (entries) =>
      transaction((tx) =>
        insertNew(
          tx,
          schema.auditLogEntries,
          entries.map((entry) => ({ ...entry })),
        ),
      ),
    async check(accounts) {
      // A database not migrated yet holds nobody: a dry run there makes no tables to ask.
      const skipped = await conflicts(db, accounts).catch((error: unknown) => {
        if (codeOf(error) === UNDEFINED_TABLE) return [];
        throw error;
      });
      const skippedIds = new Set(skipped.map((skip) => skip.userId));
      const kept = accounts.filter((account) => !skippedIds.has(account.user.id));
      const sessions = kept.flatMap((account) => account.sessions);
      return {
        written: {
          users: kept.length,
          identities: kept.reduce((sum, account) => sum + account.user.identities.length, 0),
          factors: kept.reduce((sum, account) => sum + account.user.factors.length, 0),
          sessions: sessions.length,
          refreshTokens: sessions.reduce((sum, imported) => sum + imported.refreshTokens.length, 0),
        },
        kept: ZERO,
        skipped,
      };
    },
  };
}

/** Inserts `rows`, or replaces a row of the same id whose updated_at is not later; returns how many were written. */
async function upsert<T extends PgTable>(
  runner: Database,
  table: T,
  rows: readonly T["$inferInsert"][],
): Promise<number> {
  if (rows.length === 0) return 0;
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const set = Object.fromEntries(
    Object.entries(columns)
      .filter(([, column]) => column.name !== "id")
      .map(([key, column]) => [key, sql.raw(`excluded."${column.name}"`)]),
  ) as Record<string, SQL>;
  const updatedAt = columns["updatedAt"]!;
  const id = columns["id"]!;
  const written = await runner
    .insert(table)
    .values([...rows])
    .onConflictDoUpdate({ target: id, set, setWhere: sql`${updatedAt} <= excluded."updated_at"` })
    .returning({ id });
  return written.length;
}

/** Inserts the rows not there yet (by id); returns how many were. */
async function insertNew<T extends PgTable>(
  runner: Database,
  table: T,
  rows: readonly T["$inferInsert"][],
): Promise<number> {
  if (rows.length === 0) return 0;
  const id = (getTableColumns(table) as Record<string, PgColumn>)["id"]!;
  const written = await runner
    .insert(table)
    .values([...rows])
    .onConflictDoNothing()
    .returning({ id });
  return written.length;
}

/** PostgreSQL's SQLSTATE for a relation that does not exist. */
const UNDEFINED_TABLE = "42P01";

function codeOf(error: unknown): unknown {
  for (let link = error, depth = 0; link instanceof Error && depth < 3; link = link.cause, depth++) {
    if ("code" in link && typeof link.code === "string") return link.code;
  }
  return undefined;
}

function reasonOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}

function merge(reports: readonly ImportBatchReport[]): ImportBatchReport {
  const add = (pick: (report: ImportBatchReport) => ImportedCounts): ImportedCounts => {
    const sum: Record<keyof ImportedCounts, number> = { ...ZERO };
    for (const report of reports) {
      for (const key of Object.keys(sum) as (keyof ImportedCounts)[]) sum[key] += pick(report)[key];
    }
    return sum;
  };
  return {
    written: add((report) => report.written),
    kept: add((report) => report.kept),
    skipped: reports.flatMap((report) => report.skipped),
  };
}
