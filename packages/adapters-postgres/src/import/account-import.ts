import type {
  AccountImportTarget,
  ImportBatchReport,
  ImportedAccount,
  ImportedCounts,
  Passkey,
  SsoProvider,
} from "@latchkey/domain";
import { and, eq, getTableColumns, getTableName, inArray, ne, or, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Database, RunInTransaction } from "../database.ts";
import { toFactorRow } from "../rows/factor-row.ts";
import { toIdentityRow } from "../rows/identity-row.ts";
import { toPasskeyRow } from "../rows/passkey-row.ts";
import { toRefreshTokenRow } from "../rows/refresh-token-row.ts";
import { toSessionRow } from "../rows/session-row.ts";
import { toUserRow } from "../rows/user-row.ts";
import type { Schema } from "../schema/create-schema.ts";

const ZERO: ImportedCounts = { users: 0, identities: 0, factors: 0, passkeys: 0, sessions: 0, refreshTokens: 0 };

interface Skip {
  readonly userId: string;
  readonly reason: string;
}

/**
 * The AccountImportTarget on Latchkey's tables. Each kind of row is upserted by id with "newer wins": an existing
 * row is replaced only when the imported one's updated_at is not older, so a second run brings what changed at the
 * source and keeps what changed here (a session refreshed here, a password changed here); a row as the source has it
 * is left alone, and counted unchanged. Refresh tokens are inserted once (their ids are derived from the tokens),
 * and not for a session kept here. Accounts whose address, identity or WebAuthn credential another user here holds
 * are skipped before anything is written; should the batch still fail, each account is retried alone, so that one
 * bad row costs only itself.
 */
export function createAccountImport(db: Database, transaction: RunInTransaction, schema: Schema): AccountImportTarget {
  async function writeBatch(accounts: readonly ImportedAccount[]): Promise<ImportBatchReport> {
    try {
      return await transaction((tx) => batchOutcome(tx, schema, accounts, false));
    } catch (error) {
      if (accounts.length === 1) {
        const skipped = [{ userId: accounts[0]!.user.id, reason: reasonOf(error) }];
        return { written: ZERO, unchanged: ZERO, kept: ZERO, skipped };
      }
      // One account the checks did not foresee: each alone, so that only it is lost.
      const reports: ImportBatchReport[] = [];
      for (const account of accounts) reports.push(await writeBatch([account]));
      return merge(reports);
    }
  }

  return {
    write: writeBatch,
    async writeSsoProviders(providers) {
      const report = emptySsoReport();
      // Each in a transaction of its own: one a constraint refuses (an admin made a rival meanwhile) costs only itself.
      for (const provider of providers) {
        try {
          await transaction((tx) => importSsoProvider({ on: tx, schema, claimed: null }, provider, report));
        } catch (error) {
          report.skipped.push({ providerId: provider.id, reason: reasonOf(error) });
        }
      }
      return report;
    },
    async checkSsoProviders(providers) {
      const report = emptySsoReport();
      // What the providers before would have taken, as writing them would have.
      const claimed: Claimed = { entityIds: new Map(), domains: new Map(), resourceIds: new Map() };
      try {
        for (const provider of providers) await importSsoProvider({ on: db, schema, claimed }, provider, report);
      } catch (error) {
        // Not migrated yet: nothing is here, and every provider would be written.
        if (codeOf(error) !== UNDEFINED_TABLE) throw error;
        return { written: providers.length, alreadyHere: 0, skipped: [] };
      }
      return report;
    },
    writeAudit: (entries) =>
      transaction((tx) =>
        insertNew(
          tx,
          schema.auditLogEntries,
          entries.map((entry) => ({ ...entry })),
        ),
      ),
    async check(accounts) {
      // What write would do, worked out by the same statements without their writes. A database not migrated yet
      // holds nobody: a dry run there makes no tables to ask, and everything would be written.
      try {
        return await batchOutcome(db, schema, accounts, true);
      } catch (error) {
        if (codeOf(error) !== UNDEFINED_TABLE) throw error;
        return allWritten(accounts);
      }
    },
  };
}

interface SsoReport {
  written: number;
  alreadyHere: number;
  readonly skipped: { providerId: string; reason: string }[];
}

const emptySsoReport = (): SsoReport => ({ written: 0, alreadyHere: 0, skipped: [] });

/** In a dry run, what the providers checked before would hold once written: EntityID, domain, lower(resource id) -> id. */
interface Claimed {
  readonly entityIds: Map<string, string>;
  readonly domains: Map<string, string>;
  readonly resourceIds: Map<string, string>;
}

/** Where an SSO provider is checked, and (without `claimed`) written. */
interface SsoTarget {
  readonly on: Database;
  readonly schema: Schema;
  /** In a dry run, what the providers checked before would hold. */
  readonly claimed: Claimed | null;
}

/**
 * One SSO provider and its domains (lowercased and trimmed, as the store keeps them): counted already here when one
 * of its id is, skipped with why when another provider here holds its EntityID, a domain or its resource id, else
 * written (without `claimed`) or counted as if, its claims noted for the next ones (with it: the dry run).
 */
async function importSsoProvider(target: SsoTarget, provider: SsoProvider, report: SsoReport): Promise<void> {
  const domains = [...new Set(provider.domains.map((domain) => domain.trim().toLowerCase()))];
  const conflict = await ssoConflict(target, provider, domains);
  if (conflict === "here") {
    report.alreadyHere += 1;
    return;
  }
  if (conflict !== null) {
    report.skipped.push({ providerId: provider.id, reason: conflict });
    return;
  }
  const { on, schema, claimed } = target;
  if (claimed === null) {
    const { id, saml } = provider;
    await on.insert(schema.ssoProviders).values({
      id,
      resourceId: provider.resourceId,
      disabled: provider.disabled,
      entityId: saml.entityId,
      metadataXml: saml.metadataXml,
      metadataUrl: saml.metadataUrl,
      attributeMapping: saml.attributeMapping,
      nameIdFormat: saml.nameIdFormat,
      createdAt: provider.createdAt,
      updatedAt: provider.updatedAt,
    });
    if (domains.length > 0) {
      await on.insert(schema.ssoDomains).values(domains.map((domain) => ({ providerId: id, domain })));
    }
  } else {
    claimed.entityIds.set(provider.saml.entityId, provider.id);
    if (provider.resourceId !== null) claimed.resourceIds.set(provider.resourceId.toLowerCase(), provider.id);
    for (const domain of domains) claimed.domains.set(domain, provider.id);
  }
  report.written += 1;
}

/** "here" when a provider of its id is; why it cannot be written when another holds what is its; else null. */
async function ssoConflict(
  { on, schema, claimed }: SsoTarget,
  provider: SsoProvider,
  domains: readonly string[],
): Promise<string | null> {
  const { ssoProviders: providers, ssoDomains: held } = schema;
  const { id, saml } = provider;
  const resourceId = provider.resourceId?.toLowerCase() ?? null;
  const here = await on
    .select({ id: providers.id, entityId: providers.entityId, resourceId: providers.resourceId })
    .from(providers)
    .where(
      or(
        eq(providers.id, id),
        eq(providers.entityId, saml.entityId),
        resourceId === null ? undefined : sql`lower(${providers.resourceId}) = ${resourceId}`,
      ),
    );
  if (here.some((row) => row.id === id)) return "here";
  const entityHolder = here.find((row) => row.entityId === saml.entityId)?.id ?? claimed?.entityIds.get(saml.entityId);
  if (entityHolder !== undefined)
    return `its EntityID ${saml.entityId} is that of the SSO provider ${entityHolder} here`;
  const domainsHere =
    domains.length === 0
      ? []
      : await on
          .select({ domain: held.domain, providerId: held.providerId })
          .from(held)
          .where(and(inArray(held.domain, [...domains]), ne(held.providerId, id)));
  const claimedDomain = domains.find((domain) => claimed?.domains.has(domain));
  const domainHolder =
    domainsHere[0] ??
    (claimedDomain === undefined
      ? undefined
      : { domain: claimedDomain, providerId: claimed!.domains.get(claimedDomain)! });
  if (domainHolder !== undefined) {
    return `its domain ${domainHolder.domain} is held by the SSO provider ${domainHolder.providerId} here`;
  }
  const resourceHolder =
    resourceId === null
      ? undefined
      : (here.find((row) => row.resourceId?.toLowerCase() === resourceId)?.id ?? claimed?.resourceIds.get(resourceId));
  if (resourceHolder !== undefined) {
    return `its resource_id ${provider.resourceId} is that of the SSO provider ${resourceHolder} here`;
  }
  return null;
}

/** The accounts that conflict with none here skipped, the rest written (or, for a dry run, counted as if). */
async function batchOutcome(
  on: Database,
  schema: Schema,
  accounts: readonly ImportedAccount[],
  dryRun: boolean,
): Promise<ImportBatchReport> {
  const skipped = await conflicts(on, schema, accounts);
  const skippedIds = new Set(skipped.map((skip) => skip.userId));
  const outcome = await writeAll(
    on,
    schema,
    accounts.filter((account) => !skippedIds.has(account.user.id)),
    dryRun,
  );
  return { ...outcome, skipped };
}

/** A dry run's report where no tables are there yet: every row would be written. */
function allWritten(accounts: readonly ImportedAccount[]): ImportBatchReport {
  const sessions = accounts.flatMap((account) => account.sessions);
  const written = {
    users: accounts.length,
    identities: accounts.reduce((sum, account) => sum + account.user.identities.length, 0),
    factors: accounts.reduce((sum, account) => sum + account.user.factors.length, 0),
    passkeys: accounts.reduce((sum, account) => sum + account.passkeys.length, 0),
    sessions: sessions.length,
    refreshTokens: sessions.reduce((sum, imported) => sum + imported.refreshTokens.length, 0),
  };
  return { written, unchanged: ZERO, kept: ZERO, skipped: [] };
}

/**
 * Accounts whose email, phone, identity or WebAuthn credential is another user's here, or another account's of the
 * batch.
 */
async function conflicts(runner: Database, schema: Schema, accounts: readonly ImportedAccount[]): Promise<Skip[]> {
  const taken = await takenHere(runner, schema, accounts);
  const skips: Skip[] = [];
  for (const account of accounts) {
    const { user } = account;
    const keys = contactKeys(account);
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

/**
 * The account's email, phone, identities and WebAuthn credentials, each as [key, what a skip's reason calls it].
 * An SSO user's email is no key: it may be another user's too, SSO or not (GoTrue's partial unique index, and
 * ours). Provider names have no colon but `sso:<id>`'s, whose uuid has none, so `provider:id` names one identity
 * whatever its id holds. A credential is one key whether a passkey or a factor holds it: its user handle is its
 * user's id, so it can be no one else's.
 */
function contactKeys(account: ImportedAccount): [string, string][] {
  const { user } = account;
  return [
    ...(user.email && !user.isSsoUser ? [[`email:${user.email}`, `email ${user.email}`]] : []),
    ...(user.phone ? [[`phone:${user.phone}`, `phone ${user.phone}`]] : []),
    ...user.identities.map((identity) => [
      `identity:${identity.provider}:${identity.providerId}`,
      `${identity.provider} identity ${identity.providerId}`,
    ]),
    ...credentialIdsOf(account).map((id) => [`webauthn:${id}`, `WebAuthn credential ${id}`]),
  ] as [string, string][];
}

/** The credential ids of the account's passkeys and WebAuthn factors. */
function credentialIdsOf(account: ImportedAccount): string[] {
  const ofFactors = account.user.factors.flatMap((factor) => (factor.webauthn ? [factor.webauthn.credentialId] : []));
  return [...new Set([...account.passkeys.map((passkey) => passkey.credentialId), ...ofFactors])];
}

/**
 * The accounts' emails, phones, identities and WebAuthn credentials that a user here outside the batch holds: key ->
 * holder's id.
 */
async function takenHere(
  runner: Database,
  schema: Schema,
  accounts: readonly ImportedAccount[],
): Promise<Map<string, string>> {
  const { users, identities } = schema;
  const ids = accounts.map((account) => account.user.id);
  const emails = accounts.flatMap((account) =>
    account.user.email && !account.user.isSsoUser ? [account.user.email] : [],
  );
  const phones = accounts.flatMap((account) => (account.user.phone ? [account.user.phone] : []));
  const pairs = accounts.flatMap((account) => account.user.identities);
  const credentials = accounts.flatMap(credentialIdsOf);
  const taken = new Map<string, string>();
  if (emails.length === 0 && phones.length === 0 && pairs.length === 0 && credentials.length === 0) return taken;
  // One statement, each list an array parameter, each entry one lookup in its unique index whatever the
  // tables' sizes: a lateral subquery of LIMIT 1 holds the planner to it, where `= ANY` of a batch's entries
  // scans the whole table while it has no statistics (as the import's first batches find it). An SSO user's email
  // clashes with no one's, whether it is the one imported or the one here: the email's index holds the others alone.
  const text = (values: readonly string[]) => sql`unnest(${sql.param(values)}::text[])`;
  const { rows } = (await runner.execute(sql`
    SELECT 'email:' || h.email AS key, h.id AS holder FROM ${text(emails)} AS w(email)
      CROSS JOIN LATERAL (
        SELECT ${users.email}, ${users.id} FROM ${users} WHERE ${users.email} = w.email AND ${users.isSsoUser} = false LIMIT 1
      ) AS h
    UNION ALL
    SELECT 'phone:' || h.phone, h.id FROM ${text(phones)} AS w(phone)
      CROSS JOIN LATERAL (SELECT ${users.phone}, ${users.id} FROM ${users} WHERE ${users.phone} = w.phone LIMIT 1) AS h
    UNION ALL
    SELECT 'identity:' || h.provider || ':' || h.provider_id, h.user_id
      FROM unnest(${sql.param(pairs.map((identity) => identity.provider))}::text[], ${sql.param(pairs.map((identity) => identity.providerId))}::text[]) AS w(provider, provider_id)
      CROSS JOIN LATERAL (
        SELECT ${identities.provider}, ${identities.providerId}, ${identities.userId} FROM ${identities}
        WHERE ${identities.provider} = w.provider AND ${identities.providerId} = w.provider_id LIMIT 1
      ) AS h
    UNION ALL
    ${credentialHolders(schema, credentials)}`)) as unknown as { rows: readonly { key: string; holder: string }[] };
  const batch = new Set(ids);
  for (const row of rows) if (!batch.has(row.holder)) taken.set(row.key, row.holder);
  return taken;
}

/**
 * The holders here of WebAuthn credentials (base64url ids), by passkey or by factor, as rows of `key` and `holder`:
 * each an index lookup, as in takenHere (the passkeys' credential ids are bytes, passed as hex).
 */
function credentialHolders({ webauthnCredentials: passkeys, mfaFactors: factors }: Schema, credentials: string[]): SQL {
  const hex = credentials.map((id) => Buffer.from(id, "base64url").toString("hex"));
  const factorCredential = sql`(${factors.webAuthnCredential} ->> 'credentialId')`;
  return sql`SELECT 'webauthn:' || w.credential, h.user_id
      FROM unnest(${sql.param(credentials)}::text[], ${sql.param(hex)}::text[]) AS w(credential, hex)
      CROSS JOIN LATERAL (
        (SELECT ${passkeys.userId} FROM ${passkeys} WHERE ${passkeys.credentialId} = decode(w.hex, 'hex') LIMIT 1)
        UNION ALL
        (SELECT ${factors.userId} FROM ${factors}
          WHERE ${factors.webAuthnCredential} IS NOT NULL AND ${factorCredential} = w.credential LIMIT 1)
      ) AS h`;
}

/** Writes the accounts (or, for a dry run, only works out what that would do): what each kind of row came to. */
async function writeAll(
  runner: Database,
  schema: Schema,
  accounts: readonly ImportedAccount[],
  dryRun: boolean,
): Promise<Omit<ImportBatchReport, "skipped">> {
  if (accounts.length === 0) return { written: ZERO, unchanged: ZERO, kept: ZERO };
  const allSessions = accounts.flatMap((account) => account.sessions);
  const outcomes = {
    users: await upsert(
      runner,
      schema.users,
      accounts.map((account) => toUserRow(account.user)),
      dryRun,
    ),
    identities: await upsert(
      runner,
      schema.identities,
      accounts.flatMap((account) => account.user.identities.map(toIdentityRow)),
      dryRun,
    ),
    factors: await upsert(
      runner,
      schema.mfaFactors,
      accounts.flatMap((account) => account.user.factors.map(toFactorRow)),
      dryRun,
    ),
    passkeys: await upsertRows(
      runner,
      schema.webauthnCredentials,
      accounts.flatMap((account) => account.passkeys.map(toPasskeyJson)),
      dryRun,
    ),
    sessions: await upsert(
      runner,
      schema.sessions,
      allSessions.map((imported) => toSessionRow(imported.session)),
      dryRun,
    ),
  };
  const refreshTokenOutcome = await insertTokens(runner, schema.refreshTokens, {
    rows: allSessions.flatMap((imported) => imported.refreshTokens.map(toRefreshTokenRow)),
    keptSessionIds: outcomes.sessions.keptIds,
    dryRun,
  });
  const pick = (key: "written" | "unchanged" | "kept"): ImportedCounts => ({
    users: outcomes.users[key],
    identities: outcomes.identities[key],
    factors: outcomes.factors[key],
    passkeys: outcomes.passkeys[key],
    sessions: outcomes.sessions[key],
    refreshTokens: refreshTokenOutcome[key],
  });
  return { written: pick("written"), unchanged: pick("unchanged"), kept: pick("kept") };
}

/** What one kind of row came to; `keptIds`, the ids of the rows kept. */
interface Outcome {
  readonly written: number;
  readonly unchanged: number;
  readonly kept: number;
  readonly keptIds: readonly string[];
}

const NOTHING: Outcome = { written: 0, unchanged: 0, kept: 0, keptIds: [] };

/**
 * Columns whose imported value is made anew by each run, so that a row is not "changed" by them alone: a session's
 * `rotatedAt` (the import's time, for its reuse interval) and a factor's `secret` (sealed again, with a fresh nonce).
 * A row otherwise as the source has it keeps the values an earlier run wrote.
 */
const REMADE_BY_EACH_RUN: ReadonlySet<string> = new Set(["rotatedAt", "secret"]);

/**
 * Inserts `rows`, or replaces a row of the same id whose updated_at is not later and that differs from it (or, in a
 * dry run, counts what that would do). The rows travel as one JSON parameter that json_to_recordset turns back into
 * rows: one statement of one parameter whatever the batch's size, where a VALUES list costs a parameter, and
 * drizzle's work on it, per value (bench/README.md, the import).
 */
function upsert<T extends PgTable>(
  runner: Database,
  table: T,
  rows: readonly T["$inferInsert"][],
  dryRun: boolean,
): Promise<Outcome> {
  return upsertRows(runner, table, rows, dryRun);
}

/** upsert, of rows already in the form their JSON takes (see toPasskeyJson). */
async function upsertRows(
  runner: Database,
  table: PgTable,
  rows: readonly object[],
  dryRun: boolean,
): Promise<Outcome> {
  if (rows.length === 0) return NOTHING;
  const statement = bulkInsert(table);
  return outcomeOf(
    runner,
    rows.length,
    sql`${statement.upsertHead}${json(rows)}${statement.upsertTail[dryRun ? "dryRun" : "write"]}`,
  );
}

/** The refresh tokens' rows, and the ids of the sessions kept here (whose tokens are not inserted). */
interface TokensRequest {
  readonly rows: readonly unknown[];
  readonly keptSessionIds: readonly string[];
  readonly dryRun: boolean;
}

/**
 * Inserts the refresh tokens not there yet (by id), but for sessions kept here, which have moved on from the
 * source's (or, in a dry run, counts what that would do). A token already here is unchanged: tokens never change.
 */
async function insertTokens(runner: Database, table: PgTable, request: TokensRequest): Promise<Outcome> {
  const { rows, keptSessionIds, dryRun } = request;
  if (rows.length === 0) return NOTHING;
  const statement = bulkInsert(table);
  const kept = sql.param(keptSessionIds);
  return outcomeOf(
    runner,
    rows.length,
    sql`${statement.tokensHead}${json(rows)}${statement.tokensMiddle}${kept}${statement.tokensTail[dryRun ? "dryRun" : "write"]}`,
  );
}

/** Inserts the rows not there yet (by id); returns how many were. */
async function insertNew<T extends PgTable>(
  runner: Database,
  table: T,
  rows: readonly T["$inferInsert"][],
): Promise<number> {
  if (rows.length === 0) return 0;
  const statement = bulkInsert(table);
  return (await outcomeOf(runner, rows.length, sql`${statement.insertNewHead}${json(rows)}${statement.insertNewTail}`))
    .written;
}

// Dates become ISO 8601 strings and jsonb columns' values nested JSON, as the columns' input functions read them.
const json = (rows: readonly unknown[]) => sql.param(JSON.stringify(rows));

/**
 * A passkey's row as its JSON must be: its bytea columns in the hex form bytea's input function reads (`\x0a1b`),
 * where JSON.stringify would write a Buffer as an object.
 */
function toPasskeyJson(passkey: Passkey): object {
  const hex = (bytes: Uint8Array) => `\\x${Buffer.from(bytes).toString("hex")}`;
  const row = toPasskeyRow(passkey);
  return { ...row, credentialId: hex(row.credentialId), publicKey: hex(row.publicKey) };
}

/** Runs a statement that selects `written` and `unchanged` (and the kept rows' ids); the rest were kept. */
async function outcomeOf(runner: Database, total: number, statement: SQL): Promise<Outcome> {
  const result = (await runner.execute(statement)) as unknown as {
    rows: readonly { written: number; unchanged: number; kept_ids?: string[] | null }[];
  };
  const row = result.rows[0];
  const written = row?.written ?? 0;
  const unchanged = row?.unchanged ?? 0;
  // json_agg of no row is null; pg and PGlite both hand json over parsed.
  return { written, unchanged, kept: total - written - unchanged, keptIds: row?.kept_ids ?? [] };
}

/** The statements of `table`'s rows, in pieces around their parameters. */
interface BulkInsert {
  /**
   * Classifies each row (new or changed at the source: write; as here: same; newer here: kept), then writes, or
   * for a dry run only counts.
   */
  readonly upsertHead: SQL;
  readonly upsertTail: { readonly write: SQL; readonly dryRun: SQL };
  /** Refresh tokens: the rows, then the kept sessions' ids. */
  readonly tokensHead: SQL;
  readonly tokensMiddle: SQL;
  readonly tokensTail: { readonly write: SQL; readonly dryRun: SQL };
  readonly insertNewHead: SQL;
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
  const rows = "WITH r AS (SELECT * FROM json_to_recordset(";
  const recordset = `::json) AS r(${record.join(", ")}))`;
  const name = quote(getTableName(table));
  const into = `INSERT INTO ${name} AS t (${names.join(", ")})`;
  const keyOf = (columnName: string) =>
    quote(columns.find(([, column]) => column.name === columnName)?.[0] ?? columnName);
  const compared = columns.filter(([key]) => !REMADE_BY_EACH_RUN.has(key));
  const same = `(${compared.map(([, column]) => `t.${quote(column.name)}`).join(", ")}) IS NOT DISTINCT FROM (${compared.map(([key]) => `r.${quote(key)}`).join(", ")})`;
  // Each row's lookup is a lateral subquery (OFFSET 0 keeps it one): an index lookup whatever the statistics, where a
  // join may scan the whole table while it has none, as the import's first batches find it (bench/README.md).
  const classified = `, c AS (SELECT r.*, CASE
      WHEN t."id" IS NULL THEN 'write' WHEN t."updated_at" > r.${keyOf("updated_at")} THEN 'kept' WHEN ${same} THEN 'same'
      ELSE 'write' END AS outcome
    FROM r LEFT JOIN LATERAL (SELECT * FROM ${name} WHERE "id" = r."id" OFFSET 0) AS t ON true)`;
  const set = names.filter((column) => column !== `"id"`).map((column) => `${column} = excluded.${column}`);
  // A row here changed between the classification and the write (the server runs meanwhile) is kept: newer wins.
  const written = `, w AS (${into} SELECT ${keys.join(", ")} FROM c WHERE outcome = 'write'
      ON CONFLICT ("id") DO UPDATE SET ${set.join(", ")} WHERE t."updated_at" <= excluded."updated_at" RETURNING t."id")
    SELECT count(w."id")::int AS written, count(*) FILTER (WHERE c.outcome = 'same')::int AS unchanged,
      json_agg(c."id") FILTER (WHERE c.outcome <> 'same' AND w."id" IS NULL) AS kept_ids
    FROM c LEFT JOIN w ON w."id" = c."id"`;
  const counted = `
    SELECT count(*) FILTER (WHERE outcome = 'write')::int AS written,
      count(*) FILTER (WHERE outcome = 'same')::int AS unchanged,
      json_agg("id") FILTER (WHERE outcome = 'kept') AS kept_ids
    FROM c`;
  const tokenClassified = `, c AS (SELECT r.*, CASE
      WHEN t.present THEN 'same'
      WHEN r.${keyOf("session_id")} = ANY(`;
  const tokenWritten = `, w AS (${into} SELECT ${keys.join(", ")} FROM c WHERE outcome = 'write' ON CONFLICT DO NOTHING RETURNING 1)
    SELECT (SELECT count(*)::int FROM w) AS written, count(*) FILTER (WHERE outcome = 'same')::int AS unchanged FROM c`;
  const tokenCounted = `
    SELECT count(*) FILTER (WHERE outcome = 'write')::int AS written,
      count(*) FILTER (WHERE outcome = 'same')::int AS unchanged FROM c`;
  const tokenLookup = `::uuid[]) THEN 'kept' ELSE 'write' END AS outcome
    FROM r LEFT JOIN LATERAL (SELECT true AS present FROM ${name} WHERE "id" = r."id" OFFSET 0) AS t ON true)`;
  const statement: BulkInsert = {
    upsertHead: sql.raw(rows),
    upsertTail: {
      write: sql.raw(`${recordset}${classified}${written}`),
      dryRun: sql.raw(`${recordset}${classified}${counted}`),
    },
    tokensHead: sql.raw(rows),
    tokensMiddle: sql.raw(`${recordset}${tokenClassified}`),
    tokensTail: {
      write: sql.raw(`${tokenLookup}${tokenWritten}`),
      dryRun: sql.raw(`${tokenLookup}${tokenCounted}`),
    },
    insertNewHead: sql.raw(`WITH written AS (${into} SELECT ${keys.join(", ")} FROM json_to_recordset(`),
    insertNewTail: sql.raw(
      `::json) AS r(${record.join(", ")}) ON CONFLICT DO NOTHING RETURNING 1) SELECT count(*)::int AS written, 0 AS unchanged FROM written`,
    ),
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
    unchanged: add((report) => report.unchanged),
    kept: add((report) => report.kept),
    skipped: reports.flatMap((report) => report.skipped),
  };
}
