import { join } from "node:path";
import * as v from "valibot";
import type { Profile } from "./config.ts";
import { ConfigError } from "./config-error.ts";
import { DEVELOPMENT_SITE_URL, developmentApiUrl, developmentDataDir, embeddedDatabaseDir } from "./development.ts";
import { resolveEnv, SETTINGS_BY_KEY } from "./env-names.ts";
import { dotenvPath, readSources } from "./env-sources.ts";
import type { ConfigSources } from "./load-config.ts";
import { canonicalName } from "./setting.ts";
import { isSecret, type SettingKey } from "./settings.ts";

/** Where a setting's value came from; `unset` when it has none. */
type SettingSource = "environment" | ".env file" | "default" | "development profile" | "unset";

export interface EffectiveSetting {
  readonly key: SettingKey;
  /** The name it was read under, else the one it is documented under. */
  readonly name: string;
  /** As the operator wrote it (or its default), secrets redacted; undefined when there is no value to show. */
  readonly value: string | undefined;
  /** What stands in for it when it is not a value (the development profile's generated secret, say). */
  readonly note?: string;
  readonly source: SettingSource;
}

export interface EffectiveSettings {
  readonly profile: Profile;
  /** The .env file read; undefined when there is none (or its text was given). */
  readonly dotenvFile: string | undefined;
  /** Every declared setting, in declaration order. */
  readonly settings: readonly EffectiveSetting[];
}

const REDACTED = "[redacted]";

/**
 * Every setting's value and where it came from, read as loadConfig reads them (the environment first, then the
 * .env file, then the default, then the development profile's stand-in), without checking them: what a refused
 * configuration has is shown too. Throws a ConfigError only when the .env file cannot be read.
 */
export function effectiveSettings(sources: ConfigSources): EffectiveSettings {
  let variables: readonly Record<string, string>[];
  try {
    variables = readSources(sources.env, sources.dotenv, sources.cwd);
  } catch (error) {
    throw new ConfigError([`cannot read the .env file: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const env = resolveEnv(variables);
  const profile: Profile = env.has("DATABASE_URL") ? "production" : "development";
  const fallbacks = profile === "development" ? developmentFallbacks(sources.cwd, env.get("PORT")?.value) : {};
  const settings = [...SETTINGS_BY_KEY].map(([key, declared]): EffectiveSetting => {
    const set = env.get(key);
    const name = set?.name ?? canonicalName(declared);
    if (set !== undefined) {
      const source = set.source === 0 ? "environment" : ".env file";
      return { key, name, value: redacted(key, set.value), source };
    }
    if (declared.default !== undefined) return { key, name, value: declared.default, source: "default" };
    const fallback = fallbacks[key];
    if (fallback !== undefined) return { key, name, value: undefined, ...fallback, source: "development profile" };
    return { key, name, value: undefined, source: "unset" };
  });
  return { profile, dotenvFile: dotenvPath(sources.dotenv, sources.cwd), settings };
}

/** What the development profile puts in place of settings left unset (development.ts, build-config.ts). */
function developmentFallbacks(
  cwd: string,
  port: string | undefined,
): Partial<Record<SettingKey, { value?: string; note?: string }>> {
  const portSchema = SETTINGS_BY_KEY.get("PORT")!.schema;
  const parsedPort = v.safeParse(portSchema, port ?? SETTINGS_BY_KEY.get("PORT")!.default);
  const data = developmentDataDir(cwd);
  return {
    SITE_URL: { value: DEVELOPMENT_SITE_URL },
    API_EXTERNAL_URL: parsedPort.success ? { value: developmentApiUrl(parsedPort.output as number) } : {},
    DATABASE_URL: { note: `an embedded PostgreSQL in ${embeddedDatabaseDir(cwd)}` },
    JWT_SECRET: { note: `generated once into ${join(data, "jwt-secret")}` },
    JWT_KEYS: { note: `an RS256 key generated once into ${join(data, "jwt-keys.json")}` },
    SMTP_HOST: { note: "none: mail is written to the log" },
    SMS_PROVIDER: { note: "none: SMS codes are written to the log" },
  };
}

/** security: the settings' secrets hidden; of a database or Redis URL, only its password (who, where, what stay). */
function redacted(key: SettingKey, value: string): string {
  if (key === "DATABASE_URL" || key === "REDIS_URL") return redactedUrl(value);
  if (isSecret(key)) return REDACTED;
  // A URL of any other setting (a mail template's, say) may carry a password too.
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) && URL.canParse(value) && new URL(value).password !== ""
    ? redactedUrl(value)
    : value;
}

function redactedUrl(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || !URL.canParse(value)) return REDACTED;
  const url = new URL(value);
  const user =
    url.username === "" && url.password === "" ? "" : `${url.username}${url.password ? `:${REDACTED}` : ""}@`;
  // libpq also takes a password as a query parameter.
  const query = [...url.searchParams]
    .map(([name, param]) => `${name}=${/pass|secret|token/i.test(name) ? REDACTED : encodeURIComponent(param)}`)
    .join("&");
  return `${url.protocol}//${user}${url.host}${url.pathname}${query === "" ? "" : `?${query}`}`;
}
