import type { AccountImportTarget, ImportBatchReport, ImportedCounts } from "@latchkey/domain";
import type { GotrueSource, GotrueSsoRows, SourceBatch } from "./gotrue-source.ts";
import { type Dropped, type MapContext, type MappedBatch, mapBatch } from "./map-account.ts";
import { mapAuditEntries } from "./map-audit.ts";
import { mapSsoProviders } from "./map-sso-provider.ts";

export interface ImportOptions {
  readonly source: GotrueSource;
  readonly target: AccountImportTarget;
  readonly context: Omit<MapContext, "now">;
  readonly now?: () => Date;
  /** Users per batch, and per transaction. */
  readonly batchSize?: number;
  /** Reads, maps and checks everything; writes nothing. */
  readonly dryRun?: boolean;
  /** Also brings GoTrue's audit log (after the users). */
  readonly audit?: boolean;
  /** Resumes after this user id (the last one a summary or progress line named). */
  readonly afterUserId?: string;
  /**
   * Done once before anything is written (not in a dry run), after the first batch was read and mapped: the
   * target's migrations, so that a source that cannot be read leaves the target as it was.
   */
  readonly beforeFirstWrite?: () => Promise<void>;
  /** Told after each batch. */
  readonly onProgress?: (progress: ImportProgress) => void;
}

export interface ImportProgress {
  readonly usersDone: number;
  readonly usersTotal: number;
  /** The last user of the batch written: an interrupted import resumes after it. */
  readonly lastUserId: string | null;
  readonly elapsedMs: number;
}

export interface ImportSummary {
  readonly dryRun: boolean;
  /** Rows of GoTrue's users table read, brought or skipped. */
  readonly usersRead: number;
  readonly written: ImportedCounts;
  /** Already here as GoTrue has them (an earlier run brought them). */
  readonly unchanged: ImportedCounts;
  /** Changed here since an earlier run, and kept. */
  readonly kept: ImportedCounts;
  /** Users GoTrue soft-deleted, brought soft-deleted (or, in a dry run, that would be). */
  readonly softDeleted: number;
  /** Every user not imported, with why (the first MAX_LISTED; `skippedCount` counts them all). */
  readonly skipped: readonly { readonly userId: string; readonly reason: string }[];
  readonly skippedCount: number;
  readonly dropped: Dropped;
  readonly lastUserId: string | null;
  /** GoTrue's SSO providers, brought before the users. */
  readonly ssoProviders: SsoProvidersSummary;
  /** With `audit`: entries written (or, in a dry run, that would be), and those of actions Latchkey has no word for. */
  readonly audit: { readonly written: number; readonly left: number } | null;
  readonly elapsedMs: number;
}

interface SsoProvidersSummary {
  /** Rows of GoTrue's sso_providers table read. */
  readonly read: number;
  /** New here (or, in a dry run, that would be), with their domains. */
  readonly written: number;
  /** Already here with the same id (an earlier run brought them): left as they are. */
  readonly alreadyHere: number;
  /** Every provider not brought, with why; their users come all the same. */
  readonly skipped: readonly { readonly providerId: string; readonly reason: string }[];
}

export const DEFAULT_BATCH_SIZE = 1000;
/** Reasons kept for the summary; past them only counted, so a hopeless source cannot fill the memory. */
const MAX_LISTED = 1000;

const zero = (): Record<keyof ImportedCounts, number> => ({
  users: 0,
  identities: 0,
  factors: 0,
  passkeys: 0,
  sessions: 0,
  refreshTokens: 0,
});

/** What the batches add up to so far, for the summary. */
interface Tally {
  readonly written: Record<keyof ImportedCounts, number>;
  readonly unchanged: Record<keyof ImportedCounts, number>;
  readonly kept: Record<keyof ImportedCounts, number>;
  softDeleted: number;
  readonly skipped: { userId: string; reason: string }[];
  skippedCount: number;
  readonly dropped: Dropped;
  usersRead: number;
}

/**
 * Walks the source's users in id order, a batch at a time, maps each batch and writes it in one transaction, or
 * checks it in a dry run.
 */
export async function runImport(options: ImportOptions): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const started = Date.now();
  const usersTotal = await options.source.countUsers();
  const tally: Tally = {
    written: zero(),
    unchanged: zero(),
    kept: zero(),
    softDeleted: 0,
    skipped: [],
    skippedCount: 0,
    dropped: { pendingTokens: 0, endedSessions: 0, sessions: [], factors: [], passkeys: [], passwords: [] },
    usersRead: 0,
  };
  let beforeFirstWrite = options.dryRun ? undefined : options.beforeFirstWrite;
  // Read before anything is written, so a source that cannot be read leaves the target as it was.
  const ssoRows = await options.source.readSsoProviders();
  let ssoProviders: SsoProvidersSummary | undefined;
  let lastUserId: string | null = options.afterUserId ?? null;
  let next = readAhead(options, lastUserId);
  for (;;) {
    const { batch, mapped } = await next;
    await beforeFirstWrite?.();
    beforeFirstWrite = undefined;
    // The providers before any user, so that SSO users' identities name providers here.
    ssoProviders ??= await importSsoProviders(options, ssoRows);
    if (batch.lastRead === null) break;
    if (!batch.end) next = readAhead(options, batch.lastRead);
    const report = options.dryRun
      ? await options.target.check(mapped.accounts)
      : await options.target.write(mapped.accounts);
    countBatch(tally, mapped, report);
    tally.usersRead += batch.users.length;
    lastUserId = batch.lastRead;
    options.onProgress?.({ usersDone: tally.usersRead, usersTotal, lastUserId, elapsedMs: Date.now() - started });
    if (batch.end) break;
  }
  const audit = options.audit ? await importAudit(options, batchSize) : null;
  const { usersRead, written, unchanged, kept, softDeleted, skipped, skippedCount, dropped } = tally;
  return {
    dryRun: options.dryRun ?? false,
    ssoProviders: ssoProviders ?? { read: 0, written: 0, alreadyHere: 0, skipped: [] },
    audit,
    usersRead,
    written,
    unchanged,
    kept,
    softDeleted,
    skipped,
    skippedCount,
    dropped,
    lastUserId,
    elapsedMs: Date.now() - started,
  };
}

/**
 * The batch after `afterId`, read and mapped. It is started while the one before is written, so that the source's
 * database and this process work meanwhile (memory holds two batches).
 */
function readAhead(
  options: ImportOptions,
  afterId: string | null,
): Promise<{ batch: SourceBatch; mapped: MappedBatch }> {
  const now = options.now ?? (() => new Date());
  const reading = options.source
    .readBatch(afterId, options.batchSize ?? DEFAULT_BATCH_SIZE)
    .then((batch) => ({ batch, mapped: mapBatch(batch, { ...options.context, now: now() }) }));
  // Awaited in its turn; when a write fails first, that failure is the one reported.
  reading.catch(() => undefined);
  return reading;
}

/** Adds a batch's counts, skips and drops to the tally; past MAX_LISTED, reasons are only counted. */
function countBatch(tally: Tally, mapped: MappedBatch, report: ImportBatchReport): void {
  for (const key of Object.keys(tally.written) as (keyof ImportedCounts)[]) {
    tally.written[key] += report.written[key];
    tally.unchanged[key] += report.unchanged[key];
    tally.kept[key] += report.kept[key];
  }
  for (const skip of [...mapped.skipped, ...report.skipped]) {
    tally.skippedCount += 1;
    if (tally.skipped.length < MAX_LISTED) tally.skipped.push(skip);
  }
  const notWritten = new Set(report.skipped.map((skip) => skip.userId));
  tally.softDeleted += mapped.softDeleted.filter((id) => !notWritten.has(id)).length;
  const { dropped } = tally;
  dropped.pendingTokens += mapped.dropped.pendingTokens;
  dropped.endedSessions += mapped.dropped.endedSessions;
  dropped.sessions.push(...mapped.dropped.sessions.slice(0, MAX_LISTED - dropped.sessions.length));
  dropped.factors.push(...mapped.dropped.factors.slice(0, MAX_LISTED - dropped.factors.length));
  dropped.passkeys.push(...mapped.dropped.passkeys.slice(0, MAX_LISTED - dropped.passkeys.length));
  dropped.passwords.push(...mapped.dropped.passwords.slice(0, MAX_LISTED - dropped.passwords.length));
}

/**
 * GoTrue's SSO providers, written (or checked, in a dry run). One skipped (its rows cannot be one here, or another
 * provider here holds its EntityID, a domain or its resource id) does not skip its users: GoTrue keeps the users of
 * a provider it deleted too, and they sign in again once a provider of that id is here.
 */
async function importSsoProviders(options: ImportOptions, rows: GotrueSsoRows): Promise<SsoProvidersSummary> {
  const mapped = mapSsoProviders(rows);
  const report = options.dryRun
    ? await options.target.checkSsoProviders(mapped.providers)
    : await options.target.writeSsoProviders(mapped.providers);
  return {
    read: rows.providers.length,
    written: report.written,
    alreadyHere: report.alreadyHere,
    skipped: [...mapped.skipped, ...report.skipped],
  };
}

/** The audit log, a batch at a time; entries already here (an earlier run) are not added again. */
async function importAudit(options: ImportOptions, batchSize: number): Promise<{ written: number; left: number }> {
  let written = 0;
  let left = 0;
  let afterId: string | null = null;
  for (;;) {
    const rows = await options.source.readAuditBatch(afterId, batchSize);
    if (rows.length === 0) break;
    const mapped = mapAuditEntries(rows);
    written += options.dryRun ? mapped.entries.length : await options.target.writeAudit(mapped.entries);
    left += mapped.left;
    afterId = String(rows.at(-1)!["id"]);
    if (rows.length < batchSize) break;
  }
  return { written, left };
}
