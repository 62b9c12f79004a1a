import * as v from "valibot";
import { buildConfig } from "./build-config.ts";
import { checkConsistency, configWarnings } from "./checks.ts";
import type { Config, Profile } from "./config.ts";
import { ConfigError } from "./config-error.ts";
import { developmentJwtSecret } from "./development.ts";
import { displayName, resolveEnv, type ResolvedEnv } from "./env-names.ts";
import { ENV_KEYS, EnvSchema, isEnvKey, isSecret, type EnvKey } from "./env-schema.ts";
import { readSources, type DotenvSource } from "./env-sources.ts";

export interface ConfigSources {
  /** The process environment; it wins over the .env file. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The working directory: where `.env` is looked for and the development data folder lives. */
  readonly cwd: string;
  /** Defaults to `<cwd>/.env`, read if it exists. */
  readonly dotenv?: DotenvSource;
}

/** Reads, checks and freezes the configuration; throws one ConfigError listing every problem. */
export function loadConfig(sources: ConfigSources = { env: process.env, cwd: process.cwd() }): Config {
  const env = resolveEnv(ENV_KEYS, sourcesOf(sources));
  const profile: Profile = env.has("DATABASE_URL") ? "production" : "development";

  const parsed = v.safeParse(EnvSchema, inputOf(env), { abortPipeEarly: true });
  const problems = [
    ...(parsed.issues ?? []).map((issue) => describeIssue(issue, env)),
    ...checkConsistency(env, profile),
  ];
  if (!parsed.success || problems.length > 0) {
    throw new ConfigError(problems, `Invalid configuration (${profile} profile)`);
  }

  const jwtSecret = parsed.output.JWT_SECRET ?? developmentJwtSecret(sources.cwd);
  return deepFreeze({ ...buildConfig(parsed.output, { profile, cwd: sources.cwd, jwtSecret }), warnings: configWarnings(env) });
}

function sourcesOf({ env, dotenv, cwd }: ConfigSources): readonly Record<string, string>[] {
  try {
    return readSources(env, dotenv, cwd);
  } catch (error) {
    throw new ConfigError([`cannot read the .env file: ${error instanceof Error ? error.message : String(error)}`]);
  }
}

function inputOf(env: ResolvedEnv): Partial<Record<EnvKey, string>> {
  return Object.fromEntries([...env].map(([key, variable]) => [key, variable.value]));
}

/** `NAME: what was expected, got "value"`, naming the variable as the operator wrote it; secrets are not echoed. */
function describeIssue(issue: v.BaseIssue<unknown>, env: ResolvedEnv): string {
  const key = issue.path?.[0]?.key;
  if (!isEnvKey(key)) return issue.message;
  const variable = env.get(key);
  const name = displayName(env, key);
  if (variable === undefined || isSecret(key)) return `${name}: ${issue.message}`;
  return `${name}: ${issue.message}, got ${JSON.stringify(variable.value)}`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !(value instanceof Date) && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
