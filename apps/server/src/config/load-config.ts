import { KeyObject } from "node:crypto";
import * as v from "valibot";
import { buildConfig, buildDb, buildJwt } from "./build-config.ts";
import { checkConsistency, configWarnings } from "./checks.ts";
import type { Config, DbConfig, Profile, Settings } from "./config.ts";
import { ConfigError } from "./config-error.ts";
import { developmentApiUrl, developmentJwtSecret } from "./development.ts";
import { displayName, type ResolvedEnv, resolveEnv, SETTINGS_BY_KEY } from "./env-names.ts";
import { type DotenvSource, readSources } from "./env-sources.ts";
import { misplacedNameHints } from "./misplaced-names.ts";
import { notBuiltProblems } from "./not-built.ts";
import { mapSettings, settingsOf } from "./setting.ts";
import { isSecret, SETTINGS, type SettingKey } from "./settings.ts";
import { unknownNameHints } from "./unknown-names.ts";

export interface ConfigSources {
  /** The process environment; it wins over the .env file. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The working directory: where `.env` is looked for and the development data folder lives. */
  readonly cwd: string;
  /** Defaults to `<cwd>/.env`, read if it exists. */
  readonly dotenv?: DotenvSource;
}

/** A group of settings, as declared (settings.ts): `db`, `jwt`, `log`, … */
type SettingGroup = keyof typeof SETTINGS;

/** The declared settings of `keys` as one valibot schema, a default standing in for a setting that was not set. */
function schemaOf(keys: ReadonlySet<SettingKey>) {
  return v.object(
    Object.fromEntries(
      [...SETTINGS_BY_KEY]
        .filter(([key]) => keys.has(key))
        .map(([key, declared]) => [
          key,
          declared.default === undefined ? v.optional(declared.schema) : v.optional(declared.schema, declared.default),
        ]),
    ),
  );
}

const ALL_KEYS: ReadonlySet<SettingKey> = new Set(SETTINGS_BY_KEY.keys());
const FULL_SCHEMA = schemaOf(ALL_KEYS);

interface Read<Groups extends SettingGroup> {
  readonly profile: Profile;
  readonly env: ResolvedEnv;
  readonly variables: readonly Record<string, string>[];
  readonly settings: Pick<Settings, Groups>;
}

/**
 * Reads and checks the settings of `groups` (all of them when absent); throws one ConfigError listing every
 * problem. A subcommand reads only what it uses, so `migrate` runs with the database settings alone.
 */
function readSettings<Groups extends SettingGroup>(sources: ConfigSources, groups?: readonly Groups[]): Read<Groups> {
  const variables = sourcesOf(sources);
  const env = resolveEnv(variables);
  const profile: Profile = env.has("DATABASE_URL") ? "production" : "development";
  const tree = groups === undefined ? SETTINGS : Object.fromEntries(groups.map((group) => [group, SETTINGS[group]]));
  const keys =
    groups === undefined ? ALL_KEYS : new Set(settingsOf(tree).map((declared) => declared.key as SettingKey));

  const input = Object.fromEntries([...env].filter(([key]) => keys.has(key)).map(([key, set]) => [key, set.value]));
  const parsed = v.safeParse(groups === undefined ? FULL_SCHEMA : schemaOf(keys), input, { abortPipeEarly: true });
  const problems = [
    ...(parsed.issues ?? []).map((issue) => describeIssue(issue, env)),
    ...(groups === undefined ? notBuiltProblems(variables) : []),
    ...checkConsistency(env, profile, (key) => keys.has(key)),
  ];
  if (!parsed.success || problems.length > 0) {
    // A hint of a setting not read here (SITE_URL at `migrate`) would be beside the point.
    const hints = nameHints(variables, env).filter((hint) =>
      hint.key === undefined ? groups === undefined : keys.has(hint.key),
    );
    throw new ConfigError(
      problems,
      `Invalid configuration (${profile} profile)`,
      hints.map((hint) => hint.text),
    );
  }
  const values = parsed.output as Record<string, unknown>;
  const settings = mapSettings(tree, (declared) => values[declared.key]) as unknown as Pick<Settings, Groups>;
  return { profile, env, variables, settings };
}

/** Reads, checks and freezes the configuration; throws one ConfigError listing every problem. */
export function loadConfig(sources: ConfigSources = { env: process.env, cwd: process.cwd() }): Config {
  const { profile, env, variables, settings } = readSettings(sources);
  const jwtSecret = settings.jwt.secret ?? developmentJwtSecret(sources.cwd);
  return deepFreeze({
    ...buildConfig(settings, { profile, cwd: sources.cwd, jwtSecret }),
    warnings: [...configWarnings(env, profile), ...nameHints(variables, env).map((hint) => hint.text)],
  });
}

/** What `latchkey migrate` needs: the database and the log, nothing else. */
export interface DatabaseConfig {
  readonly profile: Profile;
  readonly db: DbConfig;
  readonly log: Settings["log"];
}

export function loadDatabaseConfig(sources: ConfigSources = { env: process.env, cwd: process.cwd() }): DatabaseConfig {
  const { profile, settings } = readSettings(sources, ["db", "log"]);
  return deepFreeze({ profile, db: buildDb(settings.db, sources.cwd), log: settings.log });
}

/** What `latchkey import` needs: the database, and the keys of what is stored (token digests, TOTP secrets). */
export interface ImportConfig extends DatabaseConfig {
  readonly jwt: { readonly secret: string };
  readonly security: Settings["security"];
}

export function loadImportConfig(sources: ConfigSources = { env: process.env, cwd: process.cwd() }): ImportConfig {
  const { profile, settings } = readSettings(sources, ["db", "log", "jwt", "security"]);
  const secret = settings.jwt.secret ?? developmentJwtSecret(sources.cwd);
  return deepFreeze({
    profile,
    db: buildDb(settings.db, sources.cwd),
    log: settings.log,
    jwt: { secret },
    security: settings.security,
  });
}

/** What the anon and service_role keys are made from: the signing settings, and the URL a client is given. */
export interface ClientKeysConfig {
  readonly profile: Profile;
  /** API_EXTERNAL_URL; this server's local URL in the development profile when unset. */
  readonly externalUrl: string;
  readonly jwt: Config["jwt"];
}

export function loadClientKeysConfig(
  sources: ConfigSources = { env: process.env, cwd: process.cwd() },
): ClientKeysConfig {
  const { profile, settings } = readSettings(sources, ["api", "jwt"]);
  const externalUrl = settings.api.externalUrl ?? developmentApiUrl(settings.api.port);
  const jwtSecret = settings.jwt.secret ?? developmentJwtSecret(sources.cwd);
  const jwt = buildJwt(settings.jwt, { profile, cwd: sources.cwd, jwtSecret }, externalUrl);
  return deepFreeze({ profile, externalUrl, jwt });
}

/** Variables set that Latchkey does not read, and what each was probably meant for (a setting's name, when one is). */
function nameHints(variables: readonly Record<string, string>[], env: ResolvedEnv) {
  return [...misplacedNameHints(variables, env), ...unknownNameHints(variables)];
}

function sourcesOf({ env, dotenv, cwd }: ConfigSources): readonly Record<string, string>[] {
  try {
    return readSources(env, dotenv, cwd);
  } catch (error) {
    throw new ConfigError([`cannot read the .env file: ${error instanceof Error ? error.message : String(error)}`]);
  }
}

/** `NAME: what was expected, got "value"`, naming the variable as the operator wrote it; secrets are not echoed. */
function describeIssue(issue: v.BaseIssue<unknown>, env: ResolvedEnv): string {
  const key = issue.path?.[0]?.key;
  if (typeof key !== "string" || !SETTINGS_BY_KEY.has(key as SettingKey)) return issue.message;
  const variable = env.get(key as SettingKey);
  const name = displayName(env, key as SettingKey);
  if (variable === undefined || isSecret(key)) return `${name}: ${issue.message}`;
  return `${name}: ${issue.message}, got ${JSON.stringify(variable.value)}`;
}

/** Freezes the plain data; key objects and byte buffers (the signing keys) are left as they are. */
function deepFreeze<T>(value: T): T {
  const data = typeof value === "object" && value !== null && !(value instanceof Date);
  if (data && !(value instanceof KeyObject) && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
