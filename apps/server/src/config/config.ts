import type { CAPTCHA_PROVIDERS, LOG_LEVELS, METRICS_EXPORTERS, OTLP_PROTOCOLS } from "./env-schema.ts";
import type { Rate } from "./env-values.ts";
import type { MailNotification, MailTemplate, MailUrlPath } from "./mail-templates.ts";
import type { OAuthProviderName } from "./oauth-providers.ts";

export type { Rate } from "./env-values.ts";
export type { MailNotification, MailTemplate, MailUrlPath } from "./mail-templates.ts";
export type { OAuthProviderName } from "./oauth-providers.ts";

/** Development when no database URL is set: an embedded database, a generated JWT secret, mail to the log. */
export type Profile = "development" | "production";

export type LogLevel = (typeof LOG_LEVELS)[number];

/** The whole configuration, read once at start; frozen. Durations are seconds. */
export interface Config {
  readonly profile: Profile;
  /** Said at start, one log line each: settings accepted that have no effect. */
  readonly warnings: readonly string[];
  /** SITE_URL */
  readonly siteUrl: string;
  /** URI_ALLOW_LIST: globs of further allowed redirect targets. */
  readonly uriAllowList: readonly string[];
  readonly api: ApiConfig;
  readonly db: DbConfig;
  readonly log: LogConfig;
  readonly jwt: JwtConfig;
  readonly signup: SignupConfig;
  readonly security: SecurityConfig;
  readonly password: PasswordConfig;
  readonly mailer: MailerConfig;
  /** Undefined in development when no SMTP server is configured: mail is written to the log. */
  readonly smtp: SmtpConfig | undefined;
  readonly sms: SmsConfig;
  /** Undefined when SECURITY_CAPTCHA_ENABLED is false. */
  readonly captcha: CaptchaConfig | undefined;
  readonly external: ExternalConfig;
  readonly rateLimit: RateLimitConfig;
  readonly observability: ObservabilityConfig;
}

export interface ApiConfig {
  /** API_HOST; undefined listens on every interface. */
  readonly host: string | undefined;
  /** PORT / API_PORT */
  readonly port: number;
  /** API_EXTERNAL_URL */
  readonly externalUrl: string;
  /** REQUEST_ID_HEADER: the incoming header a request id is inherited from. */
  readonly requestIdHeader: string | undefined;
  /** API_MAX_REQUEST_DURATION */
  readonly maxRequestDurationSeconds: number;
}

interface DbSettings {
  /** DB_DRIVER */
  readonly driver: "postgres";
  /** DB_MAX_POOL_SIZE; 0 is unlimited. */
  readonly maxPoolSize: number;
  /** DB_NAMESPACE: prefix of every table name; empty for none. */
  readonly namespace: string;
}

/** Exactly one of `url` (production) and `embeddedDataDir` (development) is set. */
export type DbConfig = DbSettings &
  (
    | { readonly url: string; readonly embeddedDataDir: undefined }
    | { readonly url: undefined; readonly embeddedDataDir: string }
  );

export interface LogConfig {
  readonly level: LogLevel;
  /** LOG_FILE; undefined logs to stdout. */
  readonly file: string | undefined;
}

export interface JwtConfig {
  readonly secret: string;
  readonly expSeconds: number;
  readonly aud: string;
  /** JWT_ISSUER, else API_EXTERNAL_URL. */
  readonly issuer: string;
  /** JWT_ADMIN_ROLES: role claims that may call admin endpoints. */
  readonly adminRoles: readonly string[];
  readonly adminGroupName: string;
  /** JWT_DEFAULT_GROUP_NAME: the role of new users. */
  readonly defaultGroupName: string;
}

export interface SignupConfig {
  /** DISABLE_SIGNUP */
  readonly disabled: boolean;
  /** EXTERNAL_EMAIL_ENABLED */
  readonly emailEnabled: boolean;
  /** EXTERNAL_EMAIL_MAGIC_LINK_ENABLED */
  readonly emailMagicLinkEnabled: boolean;
  /** EXTERNAL_PHONE_ENABLED */
  readonly phoneEnabled: boolean;
  /** EXTERNAL_ANONYMOUS_USERS_ENABLED */
  readonly anonymousEnabled: boolean;
}

export interface SecurityConfig {
  readonly refreshTokenRotationEnabled: boolean;
  readonly refreshTokenReuseIntervalSeconds: number;
  readonly updatePasswordRequireReauthentication: boolean;
  /** Trust the first Auth-Forwarded-For value as the client IP. */
  readonly sbForwardedForEnabled: boolean;
}

export interface PasswordConfig {
  /** PASSWORD_MIN_LENGTH, at least 6. */
  readonly minLength: number;
  /** PASSWORD_REQUIRED_CHARACTERS, split into sets. */
  readonly requiredCharacters: readonly string[];
}

export interface MailerConfig {
  readonly autoconfirm: boolean;
  readonly otpExpSeconds: number;
  readonly otpLength: number;
  readonly secureEmailChangeEnabled: boolean;
  /** SMTP_MAX_FREQUENCY, default 900: between signup confirmations, and between email change confirmations. */
  readonly confirmationFrequencySeconds: number;
  /** SMTP_MAX_FREQUENCY when set, else 60: between magic links, and between recovery emails. */
  readonly linkFrequencySeconds: number;
  /** MAILER_URLPATHS_*: a path on API_EXTERNAL_URL, or an absolute URL. */
  readonly urlPaths: Readonly<Record<MailUrlPath, string>>;
  readonly subjects: Readonly<Record<MailTemplate, string>>;
  /** MAILER_TEMPLATES_*: URLs of HTML templates; a built-in body is used where absent. */
  readonly templates: Readonly<Partial<Record<MailTemplate, string>>>;
  /** MAILER_NOTIFICATIONS_*_ENABLED */
  readonly notifications: Readonly<Record<MailNotification, boolean>>;
}

export interface SmtpConfig {
  readonly host: string;
  readonly port: number;
  readonly user: string | undefined;
  readonly pass: string | undefined;
  /** SMTP_ADMIN_EMAIL: the From address. */
  readonly adminEmail: string;
  /** SMTP_SENDER_NAME, else the admin email. */
  readonly senderName: string;
}

export interface SmsConfig {
  /** Undefined when SMS_PROVIDER is not set. */
  readonly provider: SmsProviderConfig | undefined;
  /**
   * SMS_PROVIDER_API_URL (Latchkey's own): the origin to send the provider's API requests to instead of its
   * public one: a regional endpoint, a proxy, a stand-in in tests. Undefined for the provider's default.
   */
  readonly apiUrl: string | undefined;
  readonly autoconfirm: boolean;
  readonly maxFrequencySeconds: number;
  readonly otpExpSeconds: number;
  readonly otpLength: number;
  /** SMS_TEMPLATE, a Go-template-style text with {{ .Code }}. */
  readonly template: string;
  /** SMS_TEST_OTP: E.164 phone to its fixed code; no SMS is sent to these. */
  readonly testOtp: Readonly<Record<string, string>>;
  /** SMS_TEST_OTP_VALID_UNTIL; undefined means the test codes never expire. */
  readonly testOtpValidUntil: Date | undefined;
}

export type SmsProviderConfig =
  | {
      readonly name: "twilio";
      readonly accountSid: string;
      readonly authToken: string;
      /** A messaging service SID or the sender number. */
      readonly messageServiceSid: string;
    }
  | { readonly name: "messagebird"; readonly accessKey: string; readonly originator: string }
  | { readonly name: "textlocal"; readonly apiKey: string; readonly sender: string }
  | { readonly name: "vonage"; readonly apiKey: string; readonly apiSecret: string; readonly from: string };

export interface CaptchaConfig {
  readonly provider: (typeof CAPTCHA_PROVIDERS)[number];
  readonly secret: string;
  readonly timeoutSeconds: number;
}

export interface OAuthProviderConfig {
  readonly enabled: boolean;
  /** Set whenever `enabled` is. */
  readonly clientId: string | undefined;
  readonly secret: string | undefined;
  readonly redirectUri: string | undefined;
  /** EXTERNAL_X_URL: base URL of a self-hosted provider (gitlab default https://gitlab.com; keycloak's realm). */
  readonly url: string | undefined;
}

export type ExternalConfig = Readonly<Record<OAuthProviderName, OAuthProviderConfig>>;

export interface RateLimitConfig {
  /** RATE_LIMIT_HEADER: the header, set by a trusted proxy, that carries the client IP. */
  readonly header: string | undefined;
  /** Every email sent. */
  readonly emailSent: Rate;
  /** Every SMS sent. */
  readonly smsSent: Rate;
  /** Per IP, on /verify. */
  readonly verify: Rate;
  /** Per IP, on /token. */
  readonly tokenRefresh: Rate;
  /** Per IP and route, on /otp, /magiclink, /recover, /resend, /signup and PUT /user. */
  readonly otp: Rate;
  /** Per IP, anonymous sign-ins. */
  readonly anonymousUsers: Rate;
  /** REDIS_URL: where every instance counts these together; undefined counts them in this process's memory. */
  readonly redisUrl: string | undefined;
}

export interface ObservabilityConfig {
  readonly tracing: { readonly enabled: boolean; readonly exporter: "opentelemetry" };
  readonly metrics: { readonly enabled: boolean; readonly exporter: (typeof METRICS_EXPORTERS)[number] };
  /** Where the prometheus exporter serves metrics, on path `/`. */
  readonly prometheus: { readonly host: string; readonly port: number };
  /** The standard OTEL_* settings of the opentelemetry exporters; undefined leaves the SDK's default. */
  readonly otlp: {
    readonly serviceName: string | undefined;
    readonly protocol: (typeof OTLP_PROTOCOLS)[number] | undefined;
    readonly endpoint: string | undefined;
    readonly headers: string | undefined;
    readonly resourceAttributes: string | undefined;
  };
  /** DEBUG: more diagnostic output from the telemetry SDK. */
  readonly debug: boolean;
}
