import { parseArgs } from "node:util";
import { isUuid } from "@latchkey/domain";
import {
  DEFAULT_BATCH_SIZE,
  type GotrueSource,
  openGotrueSource,
  progressLine,
  runImport,
  summaryText,
} from "@latchkey/import-gotrue";
import type { Logger } from "pino";
import type { ImportConfig } from "../config/index.ts";
import { factorSecretsOf, storedSecretsOf } from "../secrets/stored-secrets.ts";
import { databaseTarget, describeDatabaseFailure } from "../startup/database-failures.ts";
import { migrateOnce } from "../startup/migrate-once.ts";
import { openDatabase } from "../startup/open-database.ts";
import { StartupFailure } from "../startup/startup-failure.ts";

export const IMPORT_USAGE = `usage:
  latchkey import gotrue (--from URL | --from-env NAME) [--schema auth] [--dry-run] [--audit] [--batch-size ${DEFAULT_BATCH_SIZE}] [--after USER_ID]
Reads Supabase Auth's (GoTrue's) tables in the database at URL and writes them into this configuration's database
(DATABASE_URL, or the development profile's embedded one): users, identities, MFA factors, and live sessions with
their refresh tokens. Running it again updates what changed at the source and keeps what changed here.
  --from-env NAME  the URL is in the environment variable NAME; or leave the password out of --from's URL and
                   set PGPASSWORD: a password on the command line shows in the process list
  --dry-run      read and check everything, write nothing, and say what would be written and skipped
  --audit        bring the audit log too
  --after ID     resume after this user (the last one a progress line or summary named)`;

export interface ImportArguments {
  readonly from: string;
  readonly schema: string;
  readonly dryRun: boolean;
  readonly batchSize: number;
  readonly after: string | undefined;
  readonly audit: boolean;
}

/** The arguments, or the problem with them (shown with the usage). `env` holds --from-env's variable. */
export function parseImportArguments(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): ImportArguments | string {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  const { positionals, values } = parsed;
  if (positionals.length !== 1 || positionals[0] !== "gotrue") return "what to import from: `latchkey import gotrue …`";
  if (values.from !== undefined && values["from-env"] !== undefined) return "--from or --from-env, not both";
  const fromEnv = values["from-env"];
  if (fromEnv !== undefined && !env[fromEnv]) return `--from-env: the environment has no ${fromEnv}`;
  const from = values.from ?? (fromEnv === undefined ? undefined : env[fromEnv]);
  if (from === undefined) return "--from is required: the URL of Supabase Auth's database";
  const batchSize = Number(values["batch-size"] ?? DEFAULT_BATCH_SIZE);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) return "--batch-size: 1 to 10000";
  if (values.after !== undefined && !isUuid(values.after)) return "--after: the id of a user (a uuid)";
  return {
    from,
    schema: values.schema ?? "auth",
    dryRun: values["dry-run"] ?? false,
    batchSize,
    after: values.after,
    audit: values.audit ?? false,
  };
}

export interface ImportOutput {
  /** The summary. */
  out(text: string): void;
  /** Progress: rewritten in place on a terminal, a line at most every few seconds elsewhere. */
  progress(line: string): void;
}

/** `latchkey import gotrue …`: migrates this server's database (not in a dry run), then imports batch by batch. */
export async function importCommand(
  args: ImportArguments,
  config: ImportConfig,
  log: Logger,
  output: ImportOutput,
): Promise<void> {
  const postgres = await openDatabase(config.db);
  try {
    if (!args.dryRun) await migrateOnce(postgres, config.db, log);
    const source = await openSource(args);
    try {
      const summary = await runImport({
        source,
        target: postgres.accountImport,
        context: { secrets: storedSecretsOf(config), factorSecrets: factorSecretsOf(config) },
        batchSize: args.batchSize,
        dryRun: args.dryRun,
        afterUserId: args.after,
        audit: args.audit,
        onProgress: (progress) => output.progress(progressLine(progress)),
      });
      output.out(summaryText(summary));
    } finally {
      await source.close();
    }
  } finally {
    await postgres.close();
  }
}

/** The source, or one line saying why it cannot be read (never its password). */
async function openSource(args: ImportArguments): Promise<GotrueSource> {
  let target: ReturnType<typeof databaseTarget>;
  try {
    target = databaseTarget(args.from);
  } catch {
    throw new StartupFailure("--from is not a PostgreSQL URL (postgres://user:password@host:5432/database)");
  }
  try {
    return await openGotrueSource(args.from, args.schema);
  } catch (error) {
    const failure = describeDatabaseFailure(error, target, "--from");
    const line = failure?.line ?? (error instanceof Error ? error.message : String(error));
    throw new StartupFailure(`the source (--from): ${line}`, { cause: error });
  }
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      from: { type: "string" },
      "from-env": { type: "string" },
      schema: { type: "string" },
      "dry-run": { type: "boolean" },
      "batch-size": { type: "string" },
      after: { type: "string" },
      audit: { type: "boolean" },
    },
  });
}
