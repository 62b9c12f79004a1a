import { type ResolvedEnv, SETTINGS_BY_KEY } from "./env-names.ts";
import { candidateNames, canonicalName } from "./setting.ts";
import type { SettingKey } from "./settings.ts";
import type { NameHint } from "./unknown-names.ts";

/**
 * compat: the names of Supabase's self-hosting `.env` that its docker-compose.yml hands GoTrue under other names, by
 * the setting each was meant for (the POSTGRES_ ones make up GoTrue's database URL there). Its other names
 * (SITE_URL, JWT_SECRET, SMTP_HOST, ...) are our settings' names without the prefix.
 */
const SUPABASE_NAMES: Readonly<Record<string, SettingKey>> = {
  ADDITIONAL_REDIRECT_URLS: "URI_ALLOW_LIST",
  JWT_EXPIRY: "JWT_EXP",
  ENABLE_EMAIL_SIGNUP: "EXTERNAL_EMAIL_ENABLED",
  ENABLE_EMAIL_AUTOCONFIRM: "MAILER_AUTOCONFIRM",
  ENABLE_PHONE_SIGNUP: "EXTERNAL_PHONE_ENABLED",
  ENABLE_PHONE_AUTOCONFIRM: "SMS_AUTOCONFIRM",
  ENABLE_ANONYMOUS_USERS: "EXTERNAL_ANONYMOUS_USERS_ENABLED",
  POSTGRES_HOST: "DATABASE_URL",
  POSTGRES_PORT: "DATABASE_URL",
  POSTGRES_DB: "DATABASE_URL",
  POSTGRES_PASSWORD: "DATABASE_URL",
};

/** What a hint adds about the setting it points to: DATABASE_URL holds what Supabase's .env splits in four. */
const SHAPE: Partial<Record<SettingKey, string>> = {
  DATABASE_URL: " (one URL: postgres://USER:PASSWORD@HOST:PORT/DATABASE)",
};

/**
 * A hint for each setting left unset while a variable Latchkey does not read was probably meant for it: its name
 * without our prefix (SITE_URL for AUTH_SITE_URL), or Supabase's docker .env name (JWT_EXPIRY). Those names may
 * belong to other programs too, so a setting that is set gets none. Names only: the values may be secrets.
 */
export function misplacedNameHints(sources: readonly Readonly<Record<string, string>>[], env: ResolvedEnv): NameHint[] {
  const seen = (name: string) => sources.some((variables) => variables[name] !== undefined);
  return [...SETTINGS_BY_KEY].flatMap(([key, declared]) => {
    if (env.has(key)) return [];
    const read = new Set(candidateNames(declared));
    const bare = [key, ...(declared.names?.alternative === undefined ? [] : [declared.names.alternative])];
    const supabase = Object.keys(SUPABASE_NAMES).filter((name) => SUPABASE_NAMES[name] === key);
    const names = [...bare.filter((name) => !read.has(name)), ...supabase].filter(seen);
    if (names.length === 0) return [];
    const subject = names.length === 1 ? `${names[0]} is set` : `${names.join(", ")} are set`;
    return [{ text: `${subject}: did you mean ${canonicalName(declared)}${SHAPE[key] ?? ""}?`, key }];
  });
}
