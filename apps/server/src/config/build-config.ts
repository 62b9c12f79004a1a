import type {
  Config,
  DbConfig,
  ExternalConfig,
  MailerConfig,
  Profile,
  SmsProviderConfig,
  SmtpConfig,
} from "./config.ts";
import { DEVELOPMENT_SITE_URL, developmentApiUrl, embeddedDatabaseDir } from "./development.ts";
import type { Env } from "./env-schema.ts";
import { MAIL_NOTIFICATIONS, MAIL_TEMPLATES, MAIL_URL_PATHS } from "./mail-templates.ts";
import { OAUTH_PROVIDERS, PROVIDER_DEFAULT_URLS, providerKey } from "./oauth-providers.ts";

/** What the loader knows beyond the variables. */
export interface BuildContext {
  readonly profile: Profile;
  readonly cwd: string;
  /** JWT_SECRET, else (development only) the generated one. */
  readonly jwtSecret: string;
}

/** spec: SMTP_MAX_FREQUENCY defaults to 900 s, yet magic links and recoveries go out once a minute unless it is set. */
const DEFAULT_CONFIRMATION_FREQUENCY_SECONDS = 900;
const DEFAULT_LINK_FREQUENCY_SECONDS = 60;

// The checks have run: keys the profile requires are set, so the development fallbacks below apply only there.
export function buildConfig(env: Env, { profile, cwd, jwtSecret }: BuildContext): Omit<Config, "warnings"> {
  const externalUrl = env.API_EXTERNAL_URL ?? developmentApiUrl(env.PORT);
  return {
    profile,
    siteUrl: env.SITE_URL ?? DEVELOPMENT_SITE_URL,
    uriAllowList: env.URI_ALLOW_LIST,
    api: {
      host: env.API_HOST,
      port: env.PORT,
      externalUrl,
      requestIdHeader: env.REQUEST_ID_HEADER,
      maxRequestDurationSeconds: env.API_MAX_REQUEST_DURATION,
    },
    db: buildDb(env, cwd),
    log: { level: env.LOG_LEVEL, file: env.LOG_FILE },
    jwt: {
      secret: jwtSecret,
      expSeconds: env.JWT_EXP,
      aud: env.JWT_AUD,
      issuer: env.JWT_ISSUER ?? externalUrl,
      adminRoles: env.JWT_ADMIN_ROLES,
      adminGroupName: env.JWT_ADMIN_GROUP_NAME,
      defaultGroupName: env.JWT_DEFAULT_GROUP_NAME,
    },
    signup: {
      disabled: env.DISABLE_SIGNUP,
      emailEnabled: env.EXTERNAL_EMAIL_ENABLED,
      emailMagicLinkEnabled: env.EXTERNAL_EMAIL_MAGIC_LINK_ENABLED,
      phoneEnabled: env.EXTERNAL_PHONE_ENABLED,
      anonymousEnabled: env.EXTERNAL_ANONYMOUS_USERS_ENABLED,
    },
    security: {
      refreshTokenRotationEnabled: env.SECURITY_REFRESH_TOKEN_ROTATION_ENABLED,
      refreshTokenReuseIntervalSeconds: env.SECURITY_REFRESH_TOKEN_REUSE_INTERVAL,
      updatePasswordRequireReauthentication: env.SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION,
      sbForwardedForEnabled: env.SECURITY_SB_FORWARDED_FOR_ENABLED,
    },
    password: { minLength: env.PASSWORD_MIN_LENGTH, requiredCharacters: env.PASSWORD_REQUIRED_CHARACTERS },
    mailer: buildMailer(env),
    smtp: buildSmtp(env),
    sms: {
      provider: buildSmsProvider(env),
      apiUrl: env.SMS_PROVIDER_API_URL,
      autoconfirm: env.SMS_AUTOCONFIRM,
      maxFrequencySeconds: env.SMS_MAX_FREQUENCY,
      otpExpSeconds: env.SMS_OTP_EXP,
      otpLength: env.SMS_OTP_LENGTH,
      template: env.SMS_TEMPLATE,
      testOtp: env.SMS_TEST_OTP,
      testOtpValidUntil: env.SMS_TEST_OTP_VALID_UNTIL,
    },
    captcha: env.SECURITY_CAPTCHA_ENABLED
      ? {
          provider: env.SECURITY_CAPTCHA_PROVIDER,
          secret: checked(env.SECURITY_CAPTCHA_SECRET),
          timeoutSeconds: env.SECURITY_CAPTCHA_TIMEOUT,
        }
      : undefined,
    external: buildExternal(env),
    rateLimit: {
      header: env.RATE_LIMIT_HEADER,
      emailSent: env.RATE_LIMIT_EMAIL_SENT,
      smsSent: env.RATE_LIMIT_SMS_SENT,
      verify: env.RATE_LIMIT_VERIFY,
      tokenRefresh: env.RATE_LIMIT_TOKEN_REFRESH,
      otp: env.RATE_LIMIT_OTP,
      anonymousUsers: env.RATE_LIMIT_ANONYMOUS_USERS,
      redisUrl: env.REDIS_URL,
    },
    observability: {
      tracing: { enabled: env.TRACING_ENABLED, exporter: env.TRACING_EXPORTER },
      metrics: { enabled: env.METRICS_ENABLED, exporter: env.METRICS_EXPORTER },
      prometheus: { host: env.OTEL_EXPORTER_PROMETHEUS_HOST, port: env.OTEL_EXPORTER_PROMETHEUS_PORT },
      otlp: {
        serviceName: env.OTEL_SERVICE_NAME,
        protocol: env.OTEL_EXPORTER_OTLP_PROTOCOL,
        endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
        headers: env.OTEL_EXPORTER_OTLP_HEADERS,
        resourceAttributes: env.OTEL_RESOURCE_ATTRIBUTES,
      },
      debug: env.DEBUG,
    },
  };
}

function buildDb(env: Env, cwd: string): DbConfig {
  const settings = {
    driver: env.DB_DRIVER ?? "postgres",
    maxPoolSize: env.DB_MAX_POOL_SIZE,
    namespace: env.DB_NAMESPACE ?? "",
  } as const;
  return env.DATABASE_URL === undefined
    ? { ...settings, url: undefined, embeddedDataDir: embeddedDatabaseDir(cwd) }
    : { ...settings, url: env.DATABASE_URL, embeddedDataDir: undefined };
}

function buildMailer(env: Env): MailerConfig {
  const explicitFrequency = env.SMTP_MAX_FREQUENCY;
  return {
    autoconfirm: env.MAILER_AUTOCONFIRM,
    otpExpSeconds: env.MAILER_OTP_EXP,
    otpLength: env.MAILER_OTP_LENGTH,
    secureEmailChangeEnabled: env.MAILER_SECURE_EMAIL_CHANGE_ENABLED,
    confirmationFrequencySeconds: explicitFrequency ?? DEFAULT_CONFIRMATION_FREQUENCY_SECONDS,
    linkFrequencySeconds: explicitFrequency ?? DEFAULT_LINK_FREQUENCY_SECONDS,
    urlPaths: mapKeys(MAIL_URL_PATHS, (suffix) => env[`MAILER_URLPATHS_${suffix}`]),
    subjects: mapKeys(MAIL_TEMPLATES, ({ suffix }) => env[`MAILER_SUBJECTS_${suffix}`]),
    templates: mapKeys(MAIL_TEMPLATES, ({ suffix }) => env[`MAILER_TEMPLATES_${suffix}`]),
    notifications: mapKeys(MAIL_NOTIFICATIONS, (suffix) => env[`MAILER_NOTIFICATIONS_${suffix}_ENABLED`]),
  };
}

function buildSmtp(env: Env): SmtpConfig | undefined {
  if (env.SMTP_HOST === undefined) return undefined;
  const adminEmail = checked(env.SMTP_ADMIN_EMAIL);
  return {
    host: env.SMTP_HOST,
    port: checked(env.SMTP_PORT),
    user: env.SMTP_USER,
    pass: env.SMTP_PASS,
    adminEmail,
    senderName: env.SMTP_SENDER_NAME ?? adminEmail,
  };
}

function buildSmsProvider(env: Env): SmsProviderConfig | undefined {
  switch (env.SMS_PROVIDER) {
    case undefined:
      return undefined;
    case "twilio":
      return {
        name: "twilio",
        accountSid: checked(env.SMS_TWILIO_ACCOUNT_SID),
        authToken: checked(env.SMS_TWILIO_AUTH_TOKEN),
        messageServiceSid: checked(env.SMS_TWILIO_MESSAGE_SERVICE_SID),
      };
    case "messagebird":
      return {
        name: "messagebird",
        accessKey: checked(env.SMS_MESSAGEBIRD_ACCESS_KEY),
        originator: checked(env.SMS_MESSAGEBIRD_ORIGINATOR),
      };
    case "textlocal":
      return {
        name: "textlocal",
        apiKey: checked(env.SMS_TEXTLOCAL_API_KEY),
        sender: checked(env.SMS_TEXTLOCAL_SENDER),
      };
    case "vonage":
      return {
        name: "vonage",
        apiKey: checked(env.SMS_VONAGE_API_KEY),
        apiSecret: checked(env.SMS_VONAGE_API_SECRET),
        from: checked(env.SMS_VONAGE_FROM),
      };
  }
}

function buildExternal(env: Env): ExternalConfig {
  return Object.fromEntries(
    OAUTH_PROVIDERS.map((provider) => {
      const key = providerKey(provider);
      return [
        provider,
        {
          enabled: env[`EXTERNAL_${key}_ENABLED`],
          clientId: env[`EXTERNAL_${key}_CLIENT_ID`],
          secret: env[`EXTERNAL_${key}_SECRET`],
          redirectUri: env[`EXTERNAL_${key}_REDIRECT_URI`],
          url: env[`EXTERNAL_${key}_URL`] ?? PROVIDER_DEFAULT_URLS[provider],
        },
      ];
    }),
  ) as ExternalConfig;
}

/** Reads a value that checks.ts made sure is set. */
function checked<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("a setting that checks.ts requires is missing");
  return value;
}

function mapKeys<K extends string, A, B>(table: Readonly<Record<K, A>>, map: (value: A) => B): Record<K, B> {
  return Object.fromEntries(Object.entries<A>(table).map(([key, value]) => [key, map(value)])) as Record<K, B>;
}
