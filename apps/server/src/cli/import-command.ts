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
import { parseProblem } from "./usage-errors.ts";

export interface ImportArguments {
  readonly from: string;
  readonly schema: string;
  readonly dryRun: boolean;
  readonly batchSize: number;
  readonly after: string | undefined;
  readonly audit: boolean;
}

/** The arguments, or the problem with them (cli/help.ts describes them). `env` holds --from-env's variable. */
export function parseImportArguments(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): ImportArguments | string {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return parseProblem(error, "import");
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

/**
 * `latchkey import gotrue …`: checks the source, reads its first batch, then migrates this server's database (not
 * in a dry run) and imports batch by batch. A source that cannot be read leaves the target as it was.
 */
export async function importCommand(
  args: ImportArguments,
  config: ImportConfig,
  log: Logger,
  output: ImportOutput,
): Promise<void> {
  const source = await openSource(args);
  try {
    const postgres = await openDatabase(config.db);
    try {
      const summary = await runImport({
        source,
        target: postgres.accountImport,
        context: { secrets: storedSecretsOf(config), factorSecrets: factorSecretsOf(config) },
        batchSize: args.batchSize,
        dryRun: args.dryRun,
        afterUserId: args.after,
        audit: args.audit,
        beforeFirstWrite: () => migrateOnce(postgres, config.db, log),
        onProgress: (progress) => output.progress(progressLine(progress)),
      });
      output.out(summaryText(summary));
    } finally {
      await postgres.close();
    }
  } finally {
    await source.close();
  }
}

/** The source, or one line saying why it cannot be read (never its password); and so for each later read. */
async function openSource(args: ImportArguments): Promise<GotrueSource> {
  let target: ReturnType<typeof databaseTarget>;
  try {
    target = databaseTarget(args.from);
  } catch {
    throw new StartupFailure("--from is not a PostgreSQL URL (postgres://user:password@host:5432/database)");
  }
  const failed = (error: unknown) => {
    const failure = describeDatabaseFailure(error, target, "--from");
    const line = failure?.line ?? (error instanceof Error ? error.message : String(error));
    return new StartupFailure(`the source (--from): ${line}`, { cause: error });
  };
  const explained =
    <A extends unknown[], R>(read: (...args: A) => Promise<R>) =>
    (...args: A) =>
      read(...args).catch((error: unknown) => {
        throw failed(error);
      });
  let source: GotrueSource;
  try {
    source = await openGotrueSource(args.from, args.schema);
  } catch (error) {
    throw failed(error);
  }
  return {
    countUsers: explained(source.countUsers),
    readBatch: explained(source.readBatch),
    readSsoProviders: explained(source.readSsoProviders),
    readAuditBatch: explained(source.readAuditBatch),
    close: source.close,
  };
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
