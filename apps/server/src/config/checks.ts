import type { Profile } from "./config.ts";
import { displayName, type ResolvedEnv } from "./env-names.ts";
import type { EnvKey, SMS_PROVIDERS } from "./env-schema.ts";
import { parseGoBool } from "./env-values.ts";
import { OAUTH_PROVIDERS, PROVIDERS_REQUIRING_URL, providerKey } from "./oauth-providers.ts";

// Checks across variables and profiles. They read what was set, not the parsed values, so they run, and report,
// even when some value failed to parse; a value that fails to parse is reported by the schema, not again here.

type Check = (env: ResolvedEnv, profile: Profile) => string[];

const PRODUCTION_REQUIRED: readonly EnvKey[] = [
  "SITE_URL",
  "API_EXTERNAL_URL",
  "JWT_SECRET",
  "DB_DRIVER",
  "SMTP_ADMIN_EMAIL",
  "SMTP_HOST",
  "SMTP_PORT",
];

const SMTP_SERVER: readonly EnvKey[] = ["SMTP_HOST", "SMTP_PORT", "SMTP_ADMIN_EMAIL"];

const SMS_PROVIDER_CREDENTIALS: ReadonlyMap<string, readonly EnvKey[]> = new Map(
  Object.entries({
    twilio: ["SMS_TWILIO_ACCOUNT_SID", "SMS_TWILIO_AUTH_TOKEN", "SMS_TWILIO_MESSAGE_SERVICE_SID"],
    messagebird: ["SMS_MESSAGEBIRD_ACCESS_KEY", "SMS_MESSAGEBIRD_ORIGINATOR"],
    textlocal: ["SMS_TEXTLOCAL_API_KEY", "SMS_TEXTLOCAL_SENDER"],
    vonage: ["SMS_VONAGE_API_KEY", "SMS_VONAGE_API_SECRET", "SMS_VONAGE_FROM"],
  } satisfies Record<(typeof SMS_PROVIDERS)[number], readonly EnvKey[]>),
);

/** security: HS256 with a short secret can be brute-forced offline from any issued token. */
const MIN_PRODUCTION_JWT_SECRET_LENGTH = 32;

const isTrue = (env: ResolvedEnv, key: EnvKey) => {
  const variable = env.get(key);
  return variable !== undefined && parseGoBool(variable.value) === true;
};

function missingWhen(env: ResolvedEnv, keys: readonly EnvKey[], reason: string): string[] {
  return keys.filter((key) => !env.has(key)).map((key) => `${displayName(env, key)} is required${reason}`);
}

/**
 * Multi-instance mode is inherited from GoTrue and not built; ignoring it silently would surprise its users. An
 * OPERATOR_TOKEN alone (Supabase's own compose files still set one) does not ask for it: see configWarnings.
 */
const refuseMultiInstanceMode: Check = (env) => {
  const set = env.has("API_ENDPOINT") ? (["API_ENDPOINT"] as const) : [];
  const enabled = isTrue(env, "MULTI_INSTANCE_MODE") ? (["MULTI_INSTANCE_MODE"] as const) : [];
  const asked = set.length > 0 || enabled.length > 0;
  const token = asked && env.has("OPERATOR_TOKEN") ? (["OPERATOR_TOKEN"] as const) : [];
  return [...token, ...set, ...enabled].map(
    (key) => `${displayName(env, key)}: multi-instance mode is not supported by Latchkey; remove this variable`,
  );
};

/** What the start should say but not refuse: settings that are accepted and have no effect, each named. */
export function configWarnings(env: ResolvedEnv): string[] {
  const operatorTokenAlone = env.has("OPERATOR_TOKEN") && !env.has("API_ENDPOINT") && !isTrue(env, "MULTI_INSTANCE_MODE");
  return operatorTokenAlone ? [`${displayName(env, "OPERATOR_TOKEN")} is ignored: it belongs to multi-instance mode, which Latchkey does not have`] : [];
}

const requireProductionSettings: Check = (env, profile) =>
  profile === "production" ? missingWhen(env, PRODUCTION_REQUIRED, "") : [];

const requireStrongJwtSecret: Check = (env, profile) => {
  const secret = env.get("JWT_SECRET");
  if (profile !== "production" || secret === undefined || secret.value.length >= MIN_PRODUCTION_JWT_SECRET_LENGTH) {
    return [];
  }
  const advice = "generate one with `openssl rand -hex 32`";
  return [`${secret.name}: must be at least ${MIN_PRODUCTION_JWT_SECRET_LENGTH} characters; ${advice}`];
};

/** In development SMTP is optional, but a half-configured server would fail only at the first email. */
const requireCompleteSmtpInDevelopment: Check = (env, profile) => {
  const given = SMTP_SERVER.find((key) => env.has(key));
  if (profile !== "development" || given === undefined) return [];
  return missingWhen(env, SMTP_SERVER, ` when ${displayName(env, given)} is set`);
};

const requireEnabledProviderSettings: Check = (env) =>
  OAUTH_PROVIDERS.flatMap((provider) => {
    const key = providerKey(provider);
    const enabled: EnvKey = `EXTERNAL_${key}_ENABLED`;
    if (!isTrue(env, enabled)) return [];
    const required: EnvKey[] = [`EXTERNAL_${key}_CLIENT_ID`, `EXTERNAL_${key}_SECRET`, `EXTERNAL_${key}_REDIRECT_URI`];
    if (PROVIDERS_REQUIRING_URL.includes(provider)) required.push(`EXTERNAL_${key}_URL`);
    return missingWhen(env, required, ` when ${displayName(env, enabled)} is true`);
  });

const requireCaptchaSecret: Check = (env) =>
  isTrue(env, "SECURITY_CAPTCHA_ENABLED")
    ? missingWhen(env, ["SECURITY_CAPTCHA_SECRET"], ` when ${displayName(env, "SECURITY_CAPTCHA_ENABLED")} is true`)
    : [];

const requireSmsProviderCredentials: Check = (env) => {
  const provider = env.get("SMS_PROVIDER");
  if (provider === undefined) return [];
  const credentials = SMS_PROVIDER_CREDENTIALS.get(provider.value);
  return credentials === undefined ? [] : missingWhen(env, credentials, ` when ${provider.name} is ${provider.value}`);
};

const CHECKS: readonly Check[] = [
  refuseMultiInstanceMode,
  requireProductionSettings,
  requireStrongJwtSecret,
  requireCompleteSmtpInDevelopment,
  requireEnabledProviderSettings,
  requireCaptchaSecret,
  requireSmsProviderCredentials,
];

export function checkConsistency(env: ResolvedEnv, profile: Profile): string[] {
  return CHECKS.flatMap((check) => check(env, profile));
}
