import { MAX_PASSWORD_LENGTH } from "@latchkey/domain";
import * as v from "valibot";
import {
  countPer,
  emailAddress,
  flag,
  httpUrl,
  list,
  listenPort,
  oneOf,
  port,
  postgresUrl,
  ratePerHourOrWindow,
  redisUrl,
  requiredCharacters,
  seconds,
  dbNamespace,
  testOtpMap,
  text,
  timestamp,
  urlPath,
  wholeNumber,
} from "./env-values.ts";
import {
  MAIL_NOTIFICATIONS,
  MAIL_TEMPLATES,
  MAIL_URL_PATHS,
  type MailNotificationSuffix,
  type MailSuffix,
  type MailUrlPathSuffix,
} from "./mail-templates.ts";
import { OAUTH_PROVIDERS, providerKey, type OAuthProviderKey } from "./oauth-providers.ts";

// Every configuration variable, by the specification's name (without AUTH_), with its syntax and its default. Keys are
// optional here even when the specification requires them: what is required depends on the profile (see checks.ts).
// Defaults are written as the operator would write the value, and parsed like one.

export const LOG_LEVELS = ["panic", "fatal", "error", "warn", "info", "debug"] as const;
export const SMS_PROVIDERS = ["twilio", "messagebird", "textlocal", "vonage"] as const;
export const CAPTCHA_PROVIDERS = ["hcaptcha", "turnstile"] as const;
export const METRICS_EXPORTERS = ["opentelemetry", "prometheus"] as const;
export const OTLP_PROTOCOLS = ["grpc", "http/protobuf", "http/json"] as const;

const OTP_LENGTH = wholeNumber({ min: 6, max: 10 });

/** compat: GoTrue raises a shorter minimum to 6 rather than refusing it. */
const passwordMinLength = v.pipe(
  wholeNumber({ max: MAX_PASSWORD_LENGTH }),
  v.transform((length) => Math.max(length, 6)),
);

const topLevel = {
  SITE_URL: v.optional(httpUrl),
  URI_ALLOW_LIST: v.optional(list, ""),
  DISABLE_SIGNUP: v.optional(flag, "false"),
  EXTERNAL_EMAIL_ENABLED: v.optional(flag, "true"),
  EXTERNAL_EMAIL_MAGIC_LINK_ENABLED: v.optional(flag, "true"),
  EXTERNAL_PHONE_ENABLED: v.optional(flag, "false"),
  EXTERNAL_ANONYMOUS_USERS_ENABLED: v.optional(flag, "false"),
  PASSWORD_MIN_LENGTH: v.optional(passwordMinLength, "6"),
  PASSWORD_REQUIRED_CHARACTERS: v.optional(requiredCharacters, ""),
  SECURITY_REFRESH_TOKEN_ROTATION_ENABLED: v.optional(flag, "true"),
  // Supabase projects ship with 10; with 0 two tabs refreshing one token at once would be taken for an attack.
  SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: v.optional(seconds(), "10"),
  SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: v.optional(flag, "false"),
  SECURITY_SB_FORWARDED_FOR_ENABLED: v.optional(flag, "false"),
};

/** Inherited multi-instance mode, which Latchkey does not build; read only so that setting them can be refused. */
const multiInstance = {
  OPERATOR_TOKEN: v.optional(text),
  API_ENDPOINT: v.optional(text),
  MULTI_INSTANCE_MODE: v.optional(flag, "false"),
};

const rateLimits = {
  RATE_LIMIT_HEADER: v.optional(text),
  RATE_LIMIT_EMAIL_SENT: v.optional(ratePerHourOrWindow, "30"),
  RATE_LIMIT_SMS_SENT: v.optional(ratePerHourOrWindow, "30"),
  RATE_LIMIT_VERIFY: v.optional(countPer(300), "30"),
  RATE_LIMIT_TOKEN_REFRESH: v.optional(countPer(300), "150"),
  RATE_LIMIT_OTP: v.optional(countPer(300), "30"),
  RATE_LIMIT_ANONYMOUS_USERS: v.optional(countPer(3600), "30"),
  // No default: without it the limits are counted in memory, per instance.
  REDIS_URL: v.optional(redisUrl),
};

const apiDbLog = {
  API_HOST: v.optional(text),
  PORT: v.optional(listenPort, "8081"),
  API_EXTERNAL_URL: v.optional(httpUrl),
  REQUEST_ID_HEADER: v.optional(text),
  API_MAX_REQUEST_DURATION: v.optional(seconds({ positive: true }), "10"),
  DB_DRIVER: v.optional(oneOf(["postgres"])),
  DATABASE_URL: v.optional(postgresUrl),
  DB_MAX_POOL_SIZE: v.optional(wholeNumber({ min: 0 }), "0"),
  DB_NAMESPACE: v.optional(dbNamespace),
  LOG_LEVEL: v.optional(oneOf(LOG_LEVELS, { ignoreCase: true }), "info"),
  LOG_FILE: v.optional(text),
};

const observability = {
  TRACING_ENABLED: v.optional(flag, "false"),
  TRACING_EXPORTER: v.optional(oneOf(["opentelemetry"]), "opentelemetry"),
  METRICS_ENABLED: v.optional(flag, "false"),
  METRICS_EXPORTER: v.optional(oneOf(METRICS_EXPORTERS), "opentelemetry"),
  OTEL_EXPORTER_PROMETHEUS_HOST: v.optional(text, "0.0.0.0"),
  OTEL_EXPORTER_PROMETHEUS_PORT: v.optional(listenPort, "9100"),
  OTEL_SERVICE_NAME: v.optional(text),
  OTEL_EXPORTER_OTLP_PROTOCOL: v.optional(oneOf(OTLP_PROTOCOLS)),
  OTEL_EXPORTER_OTLP_ENDPOINT: v.optional(httpUrl),
  OTEL_EXPORTER_OTLP_HEADERS: v.optional(text),
  OTEL_RESOURCE_ATTRIBUTES: v.optional(text),
  DEBUG: v.optional(flag, "false"),
};

const jwt = {
  JWT_SECRET: v.optional(text),
  JWT_EXP: v.optional(seconds({ positive: true, whole: true }), "3600"),
  JWT_AUD: v.optional(text, "authenticated"),
  JWT_ADMIN_GROUP_NAME: v.optional(text, "admin"),
  JWT_DEFAULT_GROUP_NAME: v.optional(text, "authenticated"),
  JWT_ADMIN_ROLES: v.optional(list, "service_role,supabase_admin"),
  JWT_ISSUER: v.optional(text),
};

const email = {
  SMTP_ADMIN_EMAIL: v.optional(emailAddress),
  SMTP_HOST: v.optional(text),
  SMTP_PORT: v.optional(port),
  SMTP_USER: v.optional(text),
  SMTP_PASS: v.optional(text),
  // No default here: whether it was set decides the magic-link and recovery frequency (see build-config.ts).
  SMTP_MAX_FREQUENCY: v.optional(seconds()),
  SMTP_SENDER_NAME: v.optional(text),
  MAILER_AUTOCONFIRM: v.optional(flag, "false"),
  MAILER_OTP_EXP: v.optional(seconds({ positive: true }), "86400"),
  MAILER_OTP_LENGTH: v.optional(OTP_LENGTH, "6"),
  MAILER_SECURE_EMAIL_CHANGE_ENABLED: v.optional(flag, "true"),
};

const phone = {
  SMS_AUTOCONFIRM: v.optional(flag, "false"),
  SMS_MAX_FREQUENCY: v.optional(seconds(), "60"),
  SMS_OTP_EXP: v.optional(seconds({ positive: true }), "60"),
  SMS_OTP_LENGTH: v.optional(OTP_LENGTH, "6"),
  SMS_PROVIDER: v.optional(oneOf(SMS_PROVIDERS)),
  SMS_PROVIDER_API_URL: v.optional(httpUrl),
  SMS_TEMPLATE: v.optional(text, "Your code is {{ .Code }}"),
  SMS_TEST_OTP: v.optional(testOtpMap, ""),
  SMS_TEST_OTP_VALID_UNTIL: v.optional(timestamp),
  SMS_TWILIO_ACCOUNT_SID: v.optional(text),
  SMS_TWILIO_AUTH_TOKEN: v.optional(text),
  SMS_TWILIO_MESSAGE_SERVICE_SID: v.optional(text),
  SMS_MESSAGEBIRD_ACCESS_KEY: v.optional(text),
  SMS_MESSAGEBIRD_ORIGINATOR: v.optional(text),
  SMS_TEXTLOCAL_API_KEY: v.optional(text),
  SMS_TEXTLOCAL_SENDER: v.optional(text),
  SMS_VONAGE_API_KEY: v.optional(text),
  SMS_VONAGE_API_SECRET: v.optional(text),
  SMS_VONAGE_FROM: v.optional(text),
};

const captcha = {
  SECURITY_CAPTCHA_ENABLED: v.optional(flag, "false"),
  SECURITY_CAPTCHA_PROVIDER: v.optional(oneOf(CAPTCHA_PROVIDERS, { ignoreCase: true }), "hcaptcha"),
  SECURITY_CAPTCHA_SECRET: v.optional(text),
  SECURITY_CAPTCHA_TIMEOUT: v.optional(seconds({ positive: true }), "10"),
};

const providerFields = {
  ENABLED: v.optional(flag, "false"),
  CLIENT_ID: v.optional(text),
  SECRET: v.optional(text),
  REDIRECT_URI: v.optional(httpUrl),
  URL: v.optional(httpUrl),
};
type ProviderField = keyof typeof providerFields;
type ProviderEntries = {
  [F in ProviderField as `EXTERNAL_${OAuthProviderKey}_${F}`]: (typeof providerFields)[F];
};

const providers = Object.fromEntries(
  OAUTH_PROVIDERS.flatMap((provider) =>
    Object.entries(providerFields).map(([field, schema]) => [`EXTERNAL_${providerKey(provider)}_${field}`, schema]),
  ),
) as ProviderEntries;

const subject = (fallback: string) => v.optional(text, fallback);
type MailerEntries = { [S in MailSuffix as `MAILER_SUBJECTS_${S}`]: ReturnType<typeof subject> } & {
  [S in MailSuffix as `MAILER_TEMPLATES_${S}`]: v.OptionalSchema<typeof httpUrl, undefined>;
} & {
  [S in MailNotificationSuffix as `MAILER_NOTIFICATIONS_${S}_ENABLED`]: v.OptionalSchema<typeof flag, "false">;
} & {
  [S in MailUrlPathSuffix as `MAILER_URLPATHS_${S}`]: v.OptionalSchema<typeof urlPath, "/verify">;
};

const mailer = Object.fromEntries([
  ...Object.values(MAIL_TEMPLATES).flatMap(({ suffix, subject: fallback }) => [
    [`MAILER_SUBJECTS_${suffix}`, subject(fallback)],
    [`MAILER_TEMPLATES_${suffix}`, v.optional(httpUrl)],
  ]),
  ...Object.values(MAIL_NOTIFICATIONS).map((suffix) => [
    `MAILER_NOTIFICATIONS_${suffix}_ENABLED`,
    v.optional(flag, "false"),
  ]),
  ...Object.values(MAIL_URL_PATHS).map((suffix) => [`MAILER_URLPATHS_${suffix}`, v.optional(urlPath, "/verify")]),
]) as MailerEntries;

export const EnvSchema = v.object({
  ...topLevel,
  ...multiInstance,
  ...rateLimits,
  ...apiDbLog,
  ...observability,
  ...jwt,
  ...email,
  ...mailer,
  ...phone,
  ...captcha,
  ...providers,
});

/** A configuration variable by the specification's name, without the AUTH_ prefix. */
export type EnvKey = keyof typeof EnvSchema.entries;
export type Env = v.InferOutput<typeof EnvSchema>;

export const ENV_KEYS = Object.keys(EnvSchema.entries) as readonly EnvKey[];

export function isEnvKey(key: unknown): key is EnvKey {
  return typeof key === "string" && Object.hasOwn(EnvSchema.entries, key);
}

/**
 * security: values of these variables never appear in an error message. Matched by name so that a new
 * credential-like variable is hidden without anyone remembering to list it; DATABASE_URL and REDIS_URL carry
 * passwords.
 */
export function isSecret(key: EnvKey): boolean {
  return /SECRET|_PASS$|_TOKEN$|_KEY$|^DATABASE_URL$|^REDIS_URL$|_HEADERS$|^SMS_TEST_OTP$/.test(key);
}
