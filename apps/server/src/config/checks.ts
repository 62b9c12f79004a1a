import type { Profile } from "./config.ts";
import { displayName, type ResolvedEnv, SETTINGS_BY_KEY } from "./env-names.ts";
import { parseGoBool } from "./env-values.ts";
import type { SettingKey } from "./settings.ts";

// Checks across settings and profiles. They read what was set, not the parsed values, so they run, and report,
// even when some value failed to parse; a value that fails to parse is reported by its schema, not again here.

type Check = (env: ResolvedEnv, profile: Profile) => string[];

const isTrue = (env: ResolvedEnv, key: SettingKey) => {
  const variable = env.get(key);
  return variable !== undefined && parseGoBool(variable.value) === true;
};

/** security: HS256 with a short secret can be brute-forced offline from any issued token. */
const MIN_PRODUCTION_JWT_SECRET_LENGTH = 32;

/** What each setting's declaration requires: in the production profile, or while another setting has a value. */
const requireDeclared: Check = (env, profile) =>
  [...SETTINGS_BY_KEY].flatMap(([key, declared]) => {
    const required = declared.required;
    if (required === undefined || env.has(key)) return [];
    if ("profile" in required) return required.profile === profile ? [`${displayName(env, key)} is required`] : [];
    const other = env.get(required.when as SettingKey);
    return other?.value === required.is
      ? [`${displayName(env, key)} is required when ${other.name} is ${other.value}`]
      : [];
  });

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
  const server: readonly SettingKey[] = ["SMTP_HOST", "SMTP_PORT", "SMTP_ADMIN_EMAIL"];
  const given = server.find((key) => env.has(key));
  if (profile !== "development" || given === undefined) return [];
  return server
    .filter((key) => !env.has(key))
    .map((key) => `${displayName(env, key)} is required when ${displayName(env, given)} is set`);
};

const CHECKS: readonly Check[] = [
  refuseMultiInstanceMode,
  requireDeclared,
  requireStrongJwtSecret,
  requireCompleteSmtpInDevelopment,
];

export function checkConsistency(env: ResolvedEnv, profile: Profile): string[] {
  return CHECKS.flatMap((check) => check(env, profile));
}

/** What the start should say but not refuse: settings that are accepted and have no effect, each named. */
export function configWarnings(env: ResolvedEnv): string[] {
  const operatorTokenAlone =
    env.has("OPERATOR_TOKEN") && !env.has("API_ENDPOINT") && !isTrue(env, "MULTI_INSTANCE_MODE");
  return operatorTokenAlone
    ? [
        `${displayName(env, "OPERATOR_TOKEN")} is ignored: it belongs to multi-instance mode, which Latchkey does not have`,
      ]
    : [];
}
