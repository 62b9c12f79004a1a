import { KeyObject } from "node:crypto";
import * as v from "valibot";
import { buildConfig } from "./build-config.ts";
import { checkConsistency, configWarnings } from "./checks.ts";
import type { Config, Profile, Settings } from "./config.ts";
import { ConfigError } from "./config-error.ts";
import { developmentJwtSecret } from "./development.ts";
import { displayName, type ResolvedEnv, resolveEnv, SETTINGS_BY_KEY } from "./env-names.ts";
import { type DotenvSource, readSources } from "./env-sources.ts";
import { notBuiltProblems } from "./not-built.ts";
import { mapSettings } from "./setting.ts";
import { isSecret, SETTINGS, type SettingKey } from "./settings.ts";
import { unknownNameWarnings } from "./unknown-names.ts";

export interface ConfigSources {
  /** The process environment; it wins over the .env file. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The working directory: where `.env` is looked for and the development data folder lives. */
  readonly cwd: string;
  /** Defaults to `<cwd>/.env`, read if it exists. */
  readonly dotenv?: DotenvSource;
}

/** Every declared setting as a valibot schema, a default standing in for a setting that was not set. */
const SettingsSchema = v.object(
  Object.fromEntries(
    [...SETTINGS_BY_KEY].map(([key, declared]) => [
      key,
      declared.default === undefined ? v.optional(declared.schema) : v.optional(declared.schema, declared.default),
    ]),
  ),
);

/** Reads, checks and freezes the configuration; throws one ConfigError listing every problem. */
export function loadConfig(sources: ConfigSources = { env: process.env, cwd: process.cwd() }): Config {
  const variables = sourcesOf(sources);
  const env = resolveEnv(variables);
  const profile: Profile = env.has("DATABASE_URL") ? "production" : "development";

  const parsed = v.safeParse(SettingsSchema, inputOf(env), { abortPipeEarly: true });
  const problems = [
    ...(parsed.issues ?? []).map((issue) => describeIssue(issue, env)),
    ...notBuiltProblems(variables),
    ...checkConsistency(env, profile),
  ];
  if (!parsed.success || problems.length > 0) {
    throw new ConfigError(problems, `Invalid configuration (${profile} profile)`);
  }

  const values = parsed.output as Record<string, unknown>;
  const settings = mapSettings(SETTINGS, (declared) => values[declared.key]) as unknown as Settings;
  const jwtSecret = settings.jwt.secret ?? developmentJwtSecret(sources.cwd);
  return deepFreeze({
    ...buildConfig(settings, { profile, cwd: sources.cwd, jwtSecret }),
    warnings: [...configWarnings(env, profile), ...unknownNameWarnings(variables)],
  });
}

function sourcesOf({ env, dotenv, cwd }: ConfigSources): readonly Record<string, string>[] {
  try {
    return readSources(env, dotenv, cwd);
  } catch (error) {
    throw new ConfigError([`cannot read the .env file: ${error instanceof Error ? error.message : String(error)}`]);
  }
}

function inputOf(env: ResolvedEnv): Partial<Record<SettingKey, string>> {
  return Object.fromEntries([...env].map(([key, variable]) => [key, variable.value]));
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
