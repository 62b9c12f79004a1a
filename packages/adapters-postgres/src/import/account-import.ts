import type { AccountImportTarget, ImportBatchReport, ImportedAccount, ImportedCounts } from "@latchkey/domain";
import { getTableColumns, getTableName, type SQL, sql } from "drizzle-orm";
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
    if (emails.length > 0 || phones.length > 0 || pairs.length > 0) {
      // One statement, each list an array parameter, each entry one lookup in its unique index whatever the
      // tables' sizes: a lateral subquery of LIMIT 1 holds the planner to it, where `= ANY` of a batch's entries
      // scans the whole table while it has no statistics (as the import's first batches find it).
      const text = (values: readonly string[]) => sql`unnest(${sql.param(values)}::text[])`;
      const { rows } = (await runner.execute(sql`
        SELECT 'email:' || h.email AS key, h.id AS holder FROM ${text(emails)} AS w(email)
          CROSS JOIN LATERAL (SELECT ${users.email}, ${users.id} FROM ${users} WHERE ${users.email} = w.email LIMIT 1) AS h
        UNION ALL
        SELECT 'phone:' || h.phone, h.id FROM ${text(phones)} AS w(phone)
          CROSS JOIN LATERAL (SELECT ${users.phone}, ${users.id} FROM ${users} WHERE ${users.phone} = w.phone LIMIT 1) AS h
        UNION ALL
        SELECT 'identity:' || h.provider || ':' || h.provider_id, h.user_id
          FROM unnest(${sql.param(pairs.map((identity) => identity.provider))}::text[], ${sql.param(pairs.map((identity) => identity.providerId))}::text[]) AS w(provider, provider_id)
          CROSS JOIN LATERAL (
            SELECT ${identities.provider}, ${identities.providerId}, ${identities.userId} FROM ${identities}
            WHERE ${identities.provider} = w.provider AND ${identities.providerId} = w.provider_id LIMIT 1
          ) AS h`)) as unknown as { rows: readonly { key: string; holder: string }[] };
      const batch = new Set(ids);
      for (const row of rows) if (!batch.has(row.holder)) taken.set(row.key, row.holder);
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

/**
 * Inserts `rows`, or replaces a row of the same id whose updated_at is not later; returns how many were written.
 * The rows travel as one JSON parameter that json_to_recordset turns back into rows: one statement of one
 * parameter whatever the batch's size, where a VALUES list costs a parameter, and drizzle's work on it, per value
 * (bench/README.md, the import).
 */
async function upsert<T extends PgTable>(
  runner: Database,
  table: T,
  rows: readonly T["$inferInsert"][],
): Promise<number> {
  if (rows.length === 0) return 0;
  const statement = bulkInsert(table);
  return countWritten(runner, statement.head, rows, statement.upsertTail);
}

/** Inserts the rows not there yet (by id); returns how many were. */
async function insertNew<T extends PgTable>(
  runner: Database,
  table: T,
  rows: readonly T["$inferInsert"][],
): Promise<number> {
  if (rows.length === 0) return 0;
  const statement = bulkInsert(table);
  return countWritten(runner, statement.head, rows, statement.insertNewTail);
}

async function countWritten(runner: Database, head: SQL, rows: readonly unknown[], tail: SQL): Promise<number> {
  // Dates become ISO 8601 strings and jsonb columns' values nested JSON, as the columns' input functions read them.
  const result = (await runner.execute(sql`${head}${sql.param(JSON.stringify(rows))}${tail}`)) as unknown as {
    rows: readonly { written: number }[];
  };
  return result.rows[0]?.written ?? 0;
}

/** The insert of `table`'s rows, before and after their JSON parameter. */
interface BulkInsert {
  readonly head: SQL;
  /** Newer wins: a row of the same id is replaced unless its updated_at is later. */
  readonly upsertTail: SQL;
  readonly insertNewTail: SQL;
}

const bulkInserts = new WeakMap<PgTable, BulkInsert>();

/** Made once per table: the rows' properties are the table's (drizzle's) keys; an identity column is left out. */
function bulkInsert(table: PgTable): BulkInsert {
  const made = bulkInserts.get(table);
  if (made) return made;
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const columns = Object.entries(getTableColumns(table) as Record<string, PgColumn>).filter(
    ([, column]) => column.generatedIdentity === undefined,
  );
  const names = columns.map(([, column]) => quote(column.name));
  const keys = columns.map(([key]) => quote(key));
  // The record's fields are named as the JSON's keys, and typed as the columns they go to.
  const record = columns.map(([key, column]) => `${quote(key)} ${column.getSQLType()}`);
  const recordset = `::json) AS r(${record.join(", ")})`;
  const counted = " RETURNING 1) SELECT count(*)::int AS written FROM written";
  const set = names.filter((name) => name !== `"id"`).map((name) => `${name} = excluded.${name}`);
  const into = `INSERT INTO ${quote(getTableName(table))} AS t (${names.join(", ")})`;
  const statement: BulkInsert = {
    head: sql.raw(`WITH written AS (${into} SELECT ${keys.join(", ")} FROM json_to_recordset(`),
    upsertTail: sql.raw(
      `${recordset} ON CONFLICT ("id") DO UPDATE SET ${set.join(", ")} WHERE t."updated_at" <= excluded."updated_at"${counted}`,
    ),
    insertNewTail: sql.raw(`${recordset} ON CONFLICT DO NOTHING${counted}`),
  };
  bulkInserts.set(table, statement);
  return statement;
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
