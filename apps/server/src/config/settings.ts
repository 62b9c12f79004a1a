import { OAUTH_PROVIDERS, type OAuthProviderName, type ProviderFacts } from "@latchkey/adapters-oauth";
import { EMAIL_KINDS, type EmailKind, URL_PATHS, type UrlPathName } from "@latchkey/adapters-smtp";
import type { AuthEmailKind, HookName, NotificationKind } from "@latchkey/domain";
import { HOOK_NAMES, MAX_PASSWORD_LENGTH } from "@latchkey/domain";
import * as v from "valibot";
import {
  algorithmList,
  countPer,
  dbNamespace,
  emailAddress,
  encryptionKey,
  flag,
  httpUrl,
  keyIdMap,
  keyRing,
  lenientFlag,
  list,
  listenPort,
  listOf,
  oneOf,
  pipeList,
  port,
  postgresUrl,
  probability,
  ratePerHourOrWindow,
  redisUrl,
  requiredCharacters,
  samlPrivateKey,
  seconds,
  testOtpMap,
  text,
  timestamp,
  urlPath,
  wholeNumber,
} from "./env-values.ts";
import { type KeysOf, type Setting, setting } from "./setting.ts";

// Every setting Latchkey reads, declared once (see setting.ts), grouped as the parsed configuration is. A setting
// exists when its feature does: those of features not built yet are in not-built.ts, which refuses them.

export const LOG_LEVELS = ["panic", "fatal", "error", "warn", "info", "debug"] as const;
/** OTLP's protocols, OTEL_EXPORTER_OTLP_PROTOCOL's values; the SDK's default first. */
export const OTLP_PROTOCOLS = ["http/protobuf", "http/json", "grpc"] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];
const SMS_PROVIDERS = ["twilio", "messagebird", "textlocal", "vonage"] as const;
/** What API_READINESS_DEPENDENCIES may make count toward GET /ready, besides the database, which always does. */
const READINESS_DEPENDENCIES = ["redis", "smtp"] as const;
export type ReadinessDependency = (typeof READINESS_DEPENDENCIES)[number];
export type SmsProviderName = (typeof SMS_PROVIDERS)[number];

const production = { profile: "production" } as const;
/** What SMTP needs in production, unless mail goes through the send_email hook. */
const productionMail = { profile: "production", unless: { when: "HOOK_SEND_EMAIL_ENABLED", is: true } } as const;
const OTP_LENGTH = wholeNumber({ min: 6, max: 10 });
/** compat: GoTrue raises MFA durations below 300 seconds to 300 rather than refusing them. */
const atLeast300Seconds = v.pipe(
  seconds(),
  v.transform((value) => Math.max(value, 300)),
);

/** compat: GoTrue raises a shorter minimum to 6 rather than refusing it. */
const passwordMinLength = v.pipe(
  wholeNumber({ max: MAX_PASSWORD_LENGTH }),
  v.transform((length) => Math.max(length, 6)),
);

/** One SMS provider's credential: required while SMS_PROVIDER names that provider. */
const credential = <const K extends string>(key: K, provider: SmsProviderName, doc: string) =>
  setting(key, text, { doc, required: { when: "SMS_PROVIDER", is: provider } });

const words = (name: string) => name.replaceAll("_", " ");

/**
 * One provider's settings, EXTERNAL_<P>_*, from its entry in the adapter's list (OAUTH_PROVIDERS): its name, its
 * title, GoTrue's other name (read as EXTERNAL_<ALIAS>_* too) and its quirks. What a code flow needs is required
 * while the provider is enabled.
 */
function oauthProvider(provider: ProviderFacts) {
  const upper = provider.name.toUpperCase();
  const alias = provider.alias?.toUpperCase();
  const name = <const S extends string>(suffix: S) => `EXTERNAL_${upper}_${suffix}` as const;
  const names = (suffix: string) =>
    alias === undefined ? {} : { names: { alternative: `EXTERNAL_${alias}_${suffix}` } };
  const whenEnabled = { when: name("ENABLED"), is: true } as const;
  const url = provider.settings?.url;
  return {
    enabled: setting(name("ENABLED"), flag, {
      default: "false",
      doc: `Sign-in with ${provider.title}.`,
      ...names("ENABLED"),
    }),
    clientId: setting(name("CLIENT_ID"), list, {
      doc: "The client id; several, comma-separated, are all accepted as id_token audiences (the first signs in by code).",
      required: whenEnabled,
      ...names("CLIENT_ID"),
    }),
    secret: setting(name("SECRET"), text, {
      doc: provider.settings?.secret ?? "The client secret.",
      required: whenEnabled,
      ...names("SECRET"),
    }),
    redirectUri: setting(name("REDIRECT_URI"), httpUrl, {
      doc: "The callback the provider knows: API_EXTERNAL_URL's /callback when unset.",
      ...names("REDIRECT_URI"),
    }),
    url: setting(name("URL"), httpUrl, {
      doc:
        url?.doc ??
        "Another base URL for every host of the provider: an enterprise or regional install, a proxy, a stand-in.",
      ...(url?.required ? { required: whenEnabled } : {}),
      ...names("URL"),
    }),
    emailOptional: setting(name("EMAIL_OPTIONAL"), flag, {
      default: "false",
      doc: "Sign in even when the provider reports no email address.",
      ...names("EMAIL_OPTIONAL"),
    }),
    skipNonceCheck: setting(name("SKIP_NONCE_CHECK"), flag, {
      default: "false",
      doc: "Accept id_tokens without comparing their nonce (POST /token?grant_type=id_token).",
      ...names("SKIP_NONCE_CHECK"),
    }),
  };
}

type OAuthProviderSettings = ReturnType<typeof oauthProvider>;
/** The settings of each OAuth provider, from the adapter's list (OAUTH_PROVIDERS): one entry there adds one. */
const oauthSettings = Object.fromEntries(
  OAUTH_PROVIDERS.map((provider) => [provider.name, oauthProvider(provider)]),
) as { readonly [P in OAuthProviderName]: OAuthProviderSettings };
const EMAIL_KIND_ENTRIES = Object.entries(EMAIL_KINDS) as [AuthEmailKind, EmailKind<AuthEmailKind>][];

/** The settings of each email kind, from its entry in the adapter's table (EMAIL_KINDS): one edit adds a kind. */
const mailSettings = {
  subjects: Object.fromEntries(
    EMAIL_KIND_ENTRIES.map(([kind, entry]) => [
      kind,
      setting(`MAILER_SUBJECTS_${entry.setting}`, text, {
        default: entry.subject,
        doc: `Subject of the ${words(kind)} email.`,
      }),
    ]),
  ) as { readonly [K in AuthEmailKind]: Setting<`MAILER_SUBJECTS_${string}`, string, true> },
  templates: Object.fromEntries(
    EMAIL_KIND_ENTRIES.map(([kind, entry]) => [
      kind,
      setting(`MAILER_TEMPLATES_${entry.setting}`, httpUrl, {
        doc: `URL of an HTML template for the ${words(kind)} email; the built-in body when unset.`,
      }),
    ]),
  ) as { readonly [K in AuthEmailKind]: Setting<`MAILER_TEMPLATES_${string}`, string, false> },
  notifications: Object.fromEntries(
    EMAIL_KIND_ENTRIES.flatMap(([kind, entry]) =>
      entry.notification === undefined
        ? []
        : [
            [
              kind,
              setting(`MAILER_NOTIFICATIONS_${entry.notification}_ENABLED`, flag, {
                default: "false",
                doc: `Send the ${words(kind)} notification.`,
              }),
            ],
          ],
    ),
  ) as { readonly [K in NotificationKind]: Setting<`MAILER_NOTIFICATIONS_${string}_ENABLED`, boolean, true> },
  urlPaths: Object.fromEntries(
    Object.entries(URL_PATHS).map(([link, suffix]) => [
      link,
      setting(`MAILER_URLPATHS_${suffix}`, urlPath, {
        default: "/verify",
        doc: `The path (on API_EXTERNAL_URL) or URL of ${words(link)} links${link === "recovery" ? " and magic links" : ""}.`,
      }),
    ]),
  ) as { readonly [K in UrlPathName]: Setting<`MAILER_URLPATHS_${(typeof URL_PATHS)[K]}`, string, true> },
};

/** What each hook is for, in its settings' docs. */
const HOOK_PURPOSES: { readonly [N in HookName]: string } = {
  custom_access_token: "changes the claims of every access token before it is signed",
  send_email: "sends every mail in place of SMTP",
  send_sms: "sends every SMS in place of SMS_PROVIDER",
  mfa_verification_attempt: "hears of every MFA code checked, and may reject the attempt",
  password_verification_attempt: "hears of every password checked at sign-in, and may reject the attempt",
  before_user_created: "may refuse any sign-up before the user is created",
  after_user_created: "hears of every user created",
};

/** One hook's settings, HOOK_<NAME>_*, as GoTrue names them (docs/compatibility.md, Hooks). */
function hookSettings(name: HookName) {
  const upper = name.toUpperCase();
  const key = <const S extends string>(suffix: S) => `HOOK_${upper}_${suffix}` as const;
  return {
    enabled: setting(key("ENABLED"), flag, {
      default: "false",
      doc: `The ${name} hook, which ${HOOK_PURPOSES[name]}.`,
    }),
    uri: setting(key("URI"), text, {
      doc:
        "Where the hook is: `pg-functions://postgres/<schema>/<function>` (a function in this database, called " +
        "with the payload as jsonb), or an `https://` endpoint (plain `http://` for localhost only).",
      required: { when: key("ENABLED"), is: true },
    }),
    secrets: setting(key("SECRETS"), pipeList, {
      doc:
        "An HTTP hook's Standard Webhooks secrets, `v1,whsec_<base64>`; several, separated by `|`, sign each call " +
        "with each (to rotate one).",
    }),
  };
}

type HookSettings = ReturnType<typeof hookSettings>;
const hooksSettings = Object.fromEntries(HOOK_NAMES.map((name) => [name, hookSettings(name)])) as {
  readonly [N in HookName]: HookSettings;
};

export const SETTINGS = {
  siteUrl: setting("SITE_URL", httpUrl, {
    required: production,
    doc: "The app's URL: where links and redirects lead when no allowed `redirect_to` is given.",
  }),
  uriAllowList: setting("URI_ALLOW_LIST", list, {
    default: "",
    doc: "Further allowed redirect targets, comma-separated globs (`*` within one part of a URL, `**` across).",
  }),
  api: {
    host: setting("API_HOST", text, { doc: "The interface to listen on; every interface when unset." }),
    port: setting("PORT", listenPort, {
      default: "8081",
      names: { unprefixed: true, alternative: "API_PORT" },
      doc: "The port to listen on.",
    }),
    externalUrl: setting("API_EXTERNAL_URL", httpUrl, {
      required: production,
      names: { gotrue: ["API_EXTERNAL_URL"] },
      doc: "The URL this server is reached at from outside, which mailed links start with.",
    }),
    requestIdHeader: setting("REQUEST_ID_HEADER", text, {
      names: { gotrue: ["GOTRUE_API_REQUEST_ID_HEADER", "REQUEST_ID_HEADER"] },
      doc: "An incoming header whose value becomes the request id in the log and in 5xx answers.",
    }),
    maxRequestDurationSeconds: setting("API_MAX_REQUEST_DURATION", seconds({ positive: true }), {
      default: "30",
      doc:
        "How long a request may take. Sending it, headers and body, from its first byte (from the connection's " +
        "opening for its first request): past it the server answers 408 and closes the connection. Answering it, " +
        "from its headers' arrival: each database statement, lock wait and wait for a connection gets what is " +
        "left, and past it PostgreSQL cancels the statement, the transaction rolls back and the answer is 504 " +
        "`request_timeout` (GoTrue's answer; its default is 10s). Work outside requests (mail delivery) gets the " +
        "same bound per statement. The embedded database of the development profile has no such limits.",
    }),
    shutdownDrainSeconds: setting("API_SHUTDOWN_DRAIN", seconds({ positive: true }), {
      default: "10s",
      doc:
        "How long the server goes on answering after SIGTERM (or SIGINT), at most; it stops as soon as the last " +
        "answer is written. Every request that reaches it is answered, with `Connection: close`, and GET /ready " +
        "answers 503. It takes new connections while they keep coming (until none has for half a second), for " +
        'half of this at most: a load balancer must stop sending to it by then (README, "Shutdown"). What is ' +
        "still open at the end is cut. The mail queued is sent after it (up to 5 s more).",
    }),
    readinessDependencies: setting("API_READINESS_DEPENDENCIES", listOf(READINESS_DEPENDENCIES), {
      default: "",
      doc:
        "Which dependencies besides the database turn GET /ready to 503 when they fail its check: a " +
        "comma-separated list of `redis` and `smtp`. Unlisted, each is reported in the answer's body " +
        '(`"redis": "unavailable"`) without failing it, since the instance serves without it (rate limits counted in ' +
        "its own memory, mail queued and retried): a load balancer that reads /ready then keeps every instance in " +
        "during an outage of theirs. The database (reachable and taking writes) always counts.",
    }),
  },
  db: {
    driver: setting("DB_DRIVER", oneOf(["postgres"]), {
      default: "postgres",
      doc: "`postgres`, the only one, and the default: a DATABASE_URL is always PostgreSQL's, so this need not be set.",
    }),
    url: setting("DATABASE_URL", postgresUrl, {
      names: { unprefixed: true, alternative: "DB_DATABASE_URL" },
      doc: "The PostgreSQL URL. Setting it selects the production profile; without it an embedded database runs.",
    }),
    maxPoolSize: setting("DB_MAX_POOL_SIZE", wholeNumber({ min: 0 }), {
      default: "0",
      doc:
        "Connections to PostgreSQL at most, per instance; 0 sets no limit of its own (PostgreSQL's " +
        "`max_connections` is then the limit: a request refused a connection for a full server waits for one " +
        "within its API_MAX_REQUEST_DURATION). Size it so that instances × (this + 1, the connection that listens " +
        "for queued mail) stays under `max_connections` minus what other clients use.",
    }),
    startupWaitSeconds: setting("DB_STARTUP_WAIT", seconds(), {
      default: "30s",
      doc:
        "How long the start waits for PostgreSQL to come up (containers start in any order), saying so once; then " +
        "it stops with what failed. A wrong password or a missing database stops it at once. 0 tries once.",
    }),
    namespace: setting("DB_NAMESPACE", dbNamespace, {
      doc: "A prefix of every table, index and constraint name, so deployments can share a database.",
    }),
    secret: setting("DB_SECRET", text, {
      doc:
        "The key of what is kept in the database: the digests of refresh tokens and codes, and queued mail and SMS, " +
        "sealed. Unset, JWT_SECRET stands in for it; set it to JWT_SECRET's value before rotating JWT_SECRET.",
    }),
    cleanupEnabled: setting("DB_CLEANUP_ENABLED", flag, {
      default: "false",
      doc:
        "Every instance deletes, in small batches, rows no longer of use: rotated refresh tokens (after 24h), ended " +
        "sessions, expired codes, flows and challenges, unverified factors, finished outbox messages, and anonymous " +
        "users after 30 days while anonymous sign-ins are on. Off (Supabase Auth's default), those tables only grow.",
    }),
    cleanupIntervalSeconds: setting("DB_CLEANUP_INTERVAL", seconds({ positive: true }), {
      default: "60s",
      doc: "How often the clean-up looks for stale rows; while it finds more than a pass takes, it goes on at once.",
    }),
    cleanupOutboxRetentionSeconds: setting("DB_CLEANUP_OUTBOX_RETENTION", seconds(), {
      default: "168h",
      doc:
        "How long the clean-up keeps delivered and abandoned outbox messages (their content is erased at delivery), " +
        "for an operator's questions about what was sent.",
    }),
  },
  log: {
    level: setting("LOG_LEVEL", oneOf(LOG_LEVELS, { ignoreCase: true }), {
      default: "info",
      names: { unprefixed: true },
      doc: "`panic`, `fatal`, `error`, `warn`, `info` or `debug`.",
    }),
    file: setting("LOG_FILE", text, { doc: "A file to append the log to; standard output when unset." }),
  },
  tracing: {
    enabled: setting("TRACING_ENABLED", flag, {
      default: "false",
      doc:
        "Trace requests with OpenTelemetry and export the spans over OTLP: a span per request, its database " +
        "statements, the mail it sends and its calls to SMS, OAuth and captcha providers. The OpenTelemetry SDK " +
        "reads its standard variables itself, from the process environment (not the .env file): " +
        "`OTEL_SERVICE_NAME`, `OTEL_EXPORTER_OTLP_ENDPOINT` (default `http://localhost:4318`, `4317` for gRPC) and " +
        "`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS` and `_TRACES_HEADERS`, " +
        "`OTEL_RESOURCE_ATTRIBUTES`. Off, the OpenTelemetry SDK is not even loaded.",
    }),
    exporter: setting("TRACING_EXPORTER", oneOf(["opentelemetry"]), {
      default: "opentelemetry",
      doc: "`opentelemetry`, the only one: OTLP.",
    }),
    protocol: setting("OTEL_EXPORTER_OTLP_PROTOCOL", text, {
      default: "http/protobuf",
      names: { unprefixed: true },
      doc:
        "How spans are exported: `http/protobuf`, `http/json` or `grpc`. Read without a prefix, as other programs " +
        "read it, and checked only while TRACING_ENABLED is true: then another value stops the start.",
    }),
    tracesProtocol: setting("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", text, {
      names: { unprefixed: true },
      doc: "OTEL_EXPORTER_OTLP_PROTOCOL for traces alone; it wins over that one.",
    }),
    debug: setting("DEBUG", lenientFlag, {
      default: "false",
      names: { unprefixed: true },
      doc:
        "`true` writes OpenTelemetry's own diagnostics to the log, whatever LOG_LEVEL (its warnings and errors, a " +
        "failed export say, are logged anyway); any other value, such as the `debug` package's `express:*`, is left " +
        "to the programs that read it.",
    }),
  },
  metrics: {
    enabled: setting("METRICS_ENABLED", flag, {
      default: "false",
      doc:
        "Record metrics with OpenTelemetry: HTTP request durations and status codes by route; sign-ins, sign-ups, " +
        "refreshes, refresh-token reuses, rate-limit refusals and captcha failures; the outbox's backlog, deliveries " +
        "and failures; password-hash durations; the database pool; and the runtime's (event-loop delay, heap, " +
        "garbage collection, CPU, memory). The list is in the README. The resource is the one traces carry " +
        "(`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `auth.version`). Off, the OpenTelemetry SDK is not even loaded.",
    }),
    exporter: setting("METRICS_EXPORTER", oneOf(["opentelemetry", "prometheus"]), {
      default: "opentelemetry",
      doc:
        "`opentelemetry` pushes them over OTLP, configured by the standard variables as traces are " +
        "(`OTEL_EXPORTER_OTLP_ENDPOINT` or `_METRICS_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`, " +
        "`OTEL_METRIC_EXPORT_INTERVAL` in ms, default 60000); `prometheus` serves them for scraping on " +
        "OTEL_EXPORTER_PROMETHEUS_HOST and _PORT, at `/` (GoTrue's path) and `/metrics`.",
    }),
    prometheusHost: setting("OTEL_EXPORTER_PROMETHEUS_HOST", text, {
      default: "127.0.0.1",
      names: { unprefixed: true },
      doc:
        "The address the Prometheus scrape endpoint listens on, with METRICS_EXPORTER=prometheus: loopback unless " +
        "set (`0.0.0.0` for every interface, as GoTrue's default), since the metrics tell about the service.",
    }),
    prometheusPort: setting("OTEL_EXPORTER_PROMETHEUS_PORT", listenPort, {
      default: "9100",
      names: { unprefixed: true },
      doc: "The port of the Prometheus scrape endpoint (0 lets the system pick one).",
    }),
    metricsProtocol: setting("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", text, {
      names: { unprefixed: true },
      doc:
        "OTEL_EXPORTER_OTLP_PROTOCOL for metrics alone; it wins over that one. Checked only while METRICS_ENABLED " +
        "is true with METRICS_EXPORTER=opentelemetry: then a value other than `http/protobuf`, `http/json` or `grpc` " +
        "stops the start.",
    }),
  },
  jwt: {
    secret: setting("JWT_SECRET", text, {
      required: production,
      doc:
        "The HS256 key (at least 32 characters): of access tokens when JWT_KEYS is unset, and of the anon and " +
        "service_role keys; also the key of what is stored when DB_SECRET is unset.",
    }),
    expSeconds: setting("JWT_EXP", seconds({ positive: true, whole: true }), {
      default: "3600",
      doc: "How long an access token lasts.",
    }),
    aud: setting("JWT_AUD", text, { default: "authenticated", doc: "The audience of new users and their tokens." }),
    defaultGroupName: setting("JWT_DEFAULT_GROUP_NAME", text, {
      default: "authenticated",
      doc: "The role of new users.",
    }),
    adminRoles: setting("JWT_ADMIN_ROLES", list, {
      default: "service_role,supabase_admin",
      doc: "Token roles that may call the admin API and /invite.",
    }),
    issuer: setting("JWT_ISSUER", text, { doc: "The `iss` of access tokens; API_EXTERNAL_URL when unset." }),
    keys: setting("JWT_KEYS", keyRing, {
      doc:
        "The signing keys: a JSON array of private JWKs (RSA, EC P-256 or P-521, Ed25519, or an `oct` secret), each " +
        'asymmetric one with a `kid`; the one with `"sign"` in its `key_ops` signs, the others only verify. Unset: ' +
        "HS256 with JWT_SECRET (in the development profile, an RS256 key generated once). `latchkey keys` makes them.",
    }),
    validMethods: setting("JWT_VALID_METHODS", algorithmList, {
      names: { alternative: "JWT_VALIDMETHODS" },
      doc: "The algorithms a token may be signed with; by default those of JWT_KEYS and HS256 (JWT_SECRET's tokens).",
    }),
    keyId: setting("JWT_KEY_ID", text, {
      doc: "Without JWT_KEYS, the `kid` of HS256 tokens; with it, a `kid` whose tokens are checked with JWT_SECRET.",
    }),
  },
  signup: {
    disabled: setting("DISABLE_SIGNUP", flag, {
      default: "false",
      doc: "Refuse new accounts (invitations still work).",
    }),
    emailEnabled: setting("EXTERNAL_EMAIL_ENABLED", flag, { default: "true", doc: "Sign-up and sign-in by email." }),
    emailMagicLinkEnabled: setting("EXTERNAL_EMAIL_MAGIC_LINK_ENABLED", flag, {
      default: "true",
      doc: "Sign-in by a mailed link or code (/magiclink, /otp with an email).",
    }),
    phoneEnabled: setting("EXTERNAL_PHONE_ENABLED", flag, { default: "false", doc: "Sign-up and sign-in by phone." }),
    anonymousEnabled: setting("EXTERNAL_ANONYMOUS_USERS_ENABLED", flag, {
      default: "false",
      doc: "Anonymous sign-ins.",
    }),
  },
  external: oauthSettings,
  captcha: {
    enabled: setting("SECURITY_CAPTCHA_ENABLED", flag, {
      default: "false",
      doc: "Ask for a captcha token on /signup, /recover, /resend, /magiclink, /otp and the password grant.",
    }),
    provider: setting("SECURITY_CAPTCHA_PROVIDER", oneOf(["hcaptcha", "turnstile"]), {
      default: "hcaptcha",
      doc: "`hcaptcha` or `turnstile`.",
    }),
    secret: setting("SECURITY_CAPTCHA_SECRET", text, {
      doc: "The secret key the provider gave for this site.",
      required: { when: "SECURITY_CAPTCHA_ENABLED", is: true },
    }),
    timeoutSeconds: setting("SECURITY_CAPTCHA_TIMEOUT", seconds({ positive: true }), {
      default: "10",
      doc: "How long the provider may take to verify a token; past it the request fails (500).",
    }),
    verifyUrl: setting("SECURITY_CAPTCHA_VERIFY_URL", httpUrl, {
      doc: "Another siteverify URL (ours): a proxy, a self-hosted hCaptcha-compatible service, a stand-in in tests.",
    }),
  },
  security: {
    refreshTokenRotationEnabled: setting("SECURITY_REFRESH_TOKEN_ROTATION_ENABLED", flag, {
      default: "true",
      doc: "End the whole session when a refresh token is used again after it was replaced.",
    }),
    refreshTokenReuseIntervalSeconds: setting("SECURITY_REFRESH_TOKEN_REUSE_INTERVAL", seconds(), {
      default: "10",
      doc: "How long the token just replaced is still answered with its child (tabs refreshing at once).",
    }),
    updatePasswordRequireReauthentication: setting("SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", flag, {
      default: "false",
      doc: "A password change needs the nonce of GET /reauthenticate.",
    }),
    updatePasswordRequireCurrentPassword: setting("SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD", flag, {
      default: "false",
      doc:
        "A password change (PUT /user) needs the current password as `current_password`, unless the user has none " +
        "or signed in by a recovery link, magic link or code (the recovery flow).",
    }),
    manualLinkingEnabled: setting("SECURITY_MANUAL_LINKING_ENABLED", flag, {
      default: "false",
      doc: "Signed-in users may link identities of other providers to their account, and unlink them.",
    }),
    sbForwardedForEnabled: setting("SECURITY_SB_FORWARDED_FOR_ENABLED", flag, {
      default: "false",
      doc: "Take the client's address from `Auth-Forwarded-For`, which a trusted proxy sets.",
    }),
    encryptionKeyId: setting("SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID", text, {
      doc: "The name stored with each secret sealed under SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY; required with it.",
    }),
    encryptionKey: setting("SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY", encryptionKey, {
      doc:
        "32 random bytes, base64url (`openssl rand -base64 32 | tr '+/' '-_' | tr -d =`): the key TOTP secrets are " +
        "sealed with (AES-256-GCM, a key per factor derived with HKDF, GoTrue's format). Unset, a key derived from " +
        "DB_SECRET seals them.",
    }),
    decryptionKeys: setting("SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS", keyIdMap, {
      default: "",
      doc: "Earlier keys still needed to open secrets sealed under them: `id:key,id2:key2` (after a key change).",
    }),
  },
  password: {
    minLength: setting("PASSWORD_MIN_LENGTH", passwordMinLength, {
      default: "6",
      doc: "The shortest password; at least 6.",
    }),
    requiredCharacters: setting("PASSWORD_REQUIRED_CHARACTERS", requiredCharacters, {
      default: "",
      doc: "Sets of characters a password must use one of each, separated by `:`.",
    }),
    hibpEnabled: setting("PASSWORD_HIBP_ENABLED", flag, {
      default: "false",
      doc:
        "Refuse passwords known from breaches (`weak_password`, reason `pwned`), asking HaveIBeenPwned's Pwned " +
        "Passwords by k-anonymity: only the first 5 hex digits of the password's SHA-1 leave the server.",
    }),
    hibpFailClosed: setting("PASSWORD_HIBP_FAIL_CLOSED", flag, {
      default: "false",
      doc:
        "When the service cannot be asked within 5 seconds, refuse the password (503 `service_unavailable`) rather " +
        "than let it pass unchecked with a logged warning. Never fails a sign-in.",
    }),
    hibpUserAgent: setting("PASSWORD_HIBP_USER_AGENT", text, {
      default: "https://github.com/supabase/gotrue",
      doc: "The User-Agent of requests to the service, which refuses requests without one.",
    }),
    hibpUrl: setting("PASSWORD_HIBP_URL", httpUrl, {
      default: "https://api.pwnedpasswords.com",
      doc: "Where the range API is (ours): the service, a mirror of it, a stand-in in tests.",
    }),
    hibpBloomEnabled: setting("PASSWORD_HIBP_BLOOM_ENABLED", flag, {
      default: "false",
      doc:
        "Remember the breached hashes of every range fetched in a bloom filter (per process, in memory): a password " +
        "whose hash it holds is refused without asking the service, even while the service cannot be asked.",
    }),
    hibpBloomItems: setting("PASSWORD_HIBP_BLOOM_ITEMS", wholeNumber({ min: 1 }), {
      default: "100000",
      doc:
        "How many hashes the bloom filter is sized for (at the default rate, 100,000 take 300 kB); it is cleared " +
        "when more than 80% of them were added.",
    }),
    hibpBloomFalsePositives: setting("PASSWORD_HIBP_BLOOM_FALSE_POSITIVES", probability, {
      default: "0.0000099",
      doc: "The bloom filter's false-positive rate when full: how often a password never breached is refused.",
    }),
  },
  mailer: {
    autoconfirm: setting("MAILER_AUTOCONFIRM", flag, { default: "false", doc: "Email sign-ups need no confirmation." }),
    allowUnverifiedEmailSignIns: setting("MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS", flag, {
      default: "false",
      doc:
        "An OAuth sign-in whose address the provider did not verify signs in at once (a confirmation mail goes " +
        "out); without it, it waits for that confirmation. Not with MAILER_AUTOCONFIRM.",
    }),
    otpExpSeconds: setting("MAILER_OTP_EXP", seconds({ positive: true }), {
      default: "86400",
      doc: "How long a mailed link or code works.",
    }),
    otpLength: setting("MAILER_OTP_LENGTH", OTP_LENGTH, { default: "6", doc: "Digits of a mailed code, 6 to 10." }),
    secureEmailChangeEnabled: setting("MAILER_SECURE_EMAIL_CHANGE_ENABLED", flag, {
      default: "true",
      doc: "An email change must be confirmed from the current address as well as the new one.",
    }),
    maxFrequencySeconds: setting("SMTP_MAX_FREQUENCY", seconds(), {
      doc: "Time between mails of one kind to one address: 900 s for confirmations and changes, 60 s for sign-in mails and nonces when unset.",
    }),
    ...mailSettings,
  },
  smtp: {
    host: setting("SMTP_HOST", text, {
      required: productionMail,
      doc:
        "The SMTP server. Without it (development profile only) mail is written to the log; with the send_email " +
        "hook on, no mail goes to it.",
    }),
    port: setting("SMTP_PORT", port, {
      required: productionMail,
      doc: "The SMTP server's port (465 speaks TLS at once).",
    }),
    user: setting("SMTP_USER", text, { doc: "The SMTP user name." }),
    pass: setting("SMTP_PASS", text, { doc: "The SMTP password." }),
    adminEmail: setting("SMTP_ADMIN_EMAIL", emailAddress, {
      required: productionMail,
      doc: "The From address of every mail.",
    }),
    senderName: setting("SMTP_SENDER_NAME", text, { doc: "The From name; the From address when unset." }),
  },
  sms: {
    provider: setting("SMS_PROVIDER", oneOf(SMS_PROVIDERS), {
      doc: "`twilio`, `messagebird`, `textlocal` or `vonage`. Without it, codes go to the log in development and fail in production.",
    }),
    apiUrl: setting("SMS_PROVIDER_API_URL", httpUrl, {
      doc: "Another origin for the provider's API: a regional endpoint, a proxy, a stand-in in tests.",
    }),
    autoconfirm: setting("SMS_AUTOCONFIRM", flag, { default: "false", doc: "Phone sign-ups need no confirmation." }),
    maxFrequencySeconds: setting("SMS_MAX_FREQUENCY", seconds(), {
      default: "60",
      doc: "Time between codes of one kind to one number.",
    }),
    otpExpSeconds: setting("SMS_OTP_EXP", seconds({ positive: true }), {
      default: "60",
      doc: "How long a texted code works.",
    }),
    otpLength: setting("SMS_OTP_LENGTH", OTP_LENGTH, { default: "6", doc: "Digits of a texted code, 6 to 10." }),
    template: setting("SMS_TEMPLATE", text, {
      default: "Your code is {{ .Code }}",
      doc: "The text of an SMS; `{{ .Code }}` is the code.",
    }),
    mfaTemplate: setting("MFA_PHONE_TEMPLATE", text, {
      default: "Your code is {{ .Code }}",
      doc: "The text of the SMS that challenges a phone factor (MFA), instead of SMS_TEMPLATE; `{{ .Code }}` is the code.",
    }),
    testOtp: setting("SMS_TEST_OTP", testOtpMap, {
      default: "",
      doc: "Numbers with fixed codes, to which nothing is sent: `15550100000:123456,...` (app-review accounts).",
    }),
    testOtpValidUntil: setting("SMS_TEST_OTP_VALID_UNTIL", timestamp, {
      doc: "When SMS_TEST_OTP stops working (RFC 3339); never when unset.",
    }),
    twilio: {
      accountSid: credential("SMS_TWILIO_ACCOUNT_SID", "twilio", "Twilio's account SID."),
      authToken: credential("SMS_TWILIO_AUTH_TOKEN", "twilio", "Twilio's auth token."),
      messageServiceSid: credential(
        "SMS_TWILIO_MESSAGE_SERVICE_SID",
        "twilio",
        "A Twilio messaging service SID, or the sender number.",
      ),
      contentSid: setting("SMS_TWILIO_CONTENT_SID", text, {
        doc: "An approved WhatsApp template (`HX…`) whose variable `{{1}}` is the code, sent by WhatsApp instead of SMS_TEMPLATE's text.",
      }),
    },
    messagebird: {
      accessKey: credential("SMS_MESSAGEBIRD_ACCESS_KEY", "messagebird", "MessageBird's access key."),
      originator: credential("SMS_MESSAGEBIRD_ORIGINATOR", "messagebird", "The sender MessageBird shows."),
    },
    textlocal: {
      apiKey: credential("SMS_TEXTLOCAL_API_KEY", "textlocal", "Textlocal's API key."),
      sender: credential("SMS_TEXTLOCAL_SENDER", "textlocal", "The sender Textlocal shows."),
    },
    vonage: {
      apiKey: credential("SMS_VONAGE_API_KEY", "vonage", "Vonage's API key."),
      apiSecret: credential("SMS_VONAGE_API_SECRET", "vonage", "Vonage's API secret."),
      from: credential("SMS_VONAGE_FROM", "vonage", "The sender Vonage shows."),
    },
  },
  rateLimit: {
    header: setting("RATE_LIMIT_HEADER", text, {
      doc: "A header a trusted proxy sets to the client's address; the socket's peer when unset. Set it behind a proxy.",
    }),
    headerTrustedProxies: setting("RATE_LIMIT_HEADER_TRUSTED_PROXIES", wholeNumber({ min: 1, max: 10 }), {
      default: "1",
      doc:
        "How many proxies in front of Latchkey add an address to RATE_LIMIT_HEADER (ours). The client's address is " +
        "that many from the right of the header's list: what the client itself sent comes before, so it is never " +
        "taken. 1, the default, takes the last address, which one proxy gives whether it sets or appends " +
        "(`X-Real-IP`, nginx's `$proxy_add_x_forwarded_for`); 2 behind a CDN and a load balancer that both append.",
    }),
    emailSent: setting("RATE_LIMIT_EMAIL_SENT", ratePerHourOrWindow, {
      default: "30",
      doc: "Mails sent, across all instances: per hour (`30`) or per window (`10/1m`).",
    }),
    smsSent: setting("RATE_LIMIT_SMS_SENT", ratePerHourOrWindow, {
      default: "30",
      doc: "SMS sent, as RATE_LIMIT_EMAIL_SENT.",
    }),
    verify: setting("RATE_LIMIT_VERIFY", countPer(300), {
      default: "30",
      doc: "/verify requests per client per 5 minutes.",
    }),
    tokenRefresh: setting("RATE_LIMIT_TOKEN_REFRESH", countPer(300), {
      default: "150",
      doc: "/token requests (every grant) per client per 5 minutes.",
    }),
    otp: setting("RATE_LIMIT_OTP", countPer(300), {
      default: "30",
      doc: "Requests per client per 5 minutes on each of /otp (with /magiclink), /recover, /resend, /signup and PUT /user.",
    }),
    anonymousUsers: setting("RATE_LIMIT_ANONYMOUS_USERS", countPer(3600), {
      default: "30",
      doc: "Anonymous sign-ins per client per hour.",
    }),
    passwordFailures: setting("RATE_LIMIT_PASSWORD_FAILURES", countPer(900), {
      default: "20",
      doc:
        "Failed password sign-ins per account (email or phone) per 15 minutes, from any client (ours); past it, " +
        "that account's password grant is refused until the window ends.",
    }),
    wrongCodes: setting("RATE_LIMIT_WRONG_CODES", ratePerHourOrWindow, {
      default: "10",
      doc:
        "Wrong codes one client (address) may send to /verify, to any addresses, per hour (`10`) or per window " +
        "(`30/1h`), ours; past it, its /verify is refused until the window ends. Low, a client cannot kill code after " +
        "code of other people's (each dies after 5 wrong tries); behind one NAT (an office, a carrier), everyone " +
        "there shares it, so raise it where many people verify from one address.",
    }),
    oauthDynamicClientRegister: setting("RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER", countPer(300), {
      default: "10",
      doc: "OAuth clients registering themselves (POST /oauth/clients/register) per client address per 5 minutes.",
    }),
    sso: setting("RATE_LIMIT_SSO", countPer(300), {
      default: "30",
      doc: "Single sign-ons begun (POST /sso) per client per 5 minutes.",
    }),
    passkey: setting("RATE_LIMIT_PASSKEY", countPer(300), {
      default: "30",
      doc: "Passkey sign-ins begun (POST /passkeys/authentication/options) per client per 5 minutes.",
    }),
    web3: setting("RATE_LIMIT_WEB3", countPer(300), {
      default: "30",
      doc: "Web3 sign-ins (POST /token?grant_type=web3) per client per 5 minutes, apart from RATE_LIMIT_TOKEN_REFRESH.",
    }),
    redisUrl: setting("REDIS_URL", redisUrl, {
      names: { unprefixed: true },
      doc: "A Redis every instance counts the limits in; this process's memory when unset.",
    }),
  },
  mfa: {
    totpEnrollEnabled: setting("MFA_TOTP_ENROLL_ENABLED", flag, {
      default: "true",
      doc: "Users may enroll TOTP factors (authenticator apps).",
    }),
    totpVerifyEnabled: setting("MFA_TOTP_VERIFY_ENABLED", flag, {
      default: "true",
      doc: "TOTP factors may be challenged and verified.",
    }),
    phoneEnrollEnabled: setting("MFA_PHONE_ENROLL_ENABLED", flag, {
      default: "false",
      doc: "Users may enroll phone factors (codes by SMS, through SMS_PROVIDER).",
    }),
    phoneVerifyEnabled: setting("MFA_PHONE_VERIFY_ENABLED", flag, {
      default: "false",
      doc: "Phone factors may be challenged and verified.",
    }),
    maxEnrolledFactors: setting("MFA_MAX_ENROLLED_FACTORS", wholeNumber({ min: 1 }), {
      default: "10",
      doc: "Factors a user may have, verified or not.",
    }),
    maxVerifiedFactors: setting("MFA_MAX_VERIFIED_FACTORS", wholeNumber({ min: 1 }), {
      default: "10",
      doc: "Verified factors a user may have.",
    }),
    challengeExpirySeconds: setting("MFA_CHALLENGE_EXPIRY_DURATION", atLeast300Seconds, {
      default: "300",
      doc: "How long a challenge can be answered; at least 300 seconds (GoTrue raises shorter values).",
    }),
    factorExpirySeconds: setting("MFA_FACTOR_EXPIRY_DURATION", atLeast300Seconds, {
      default: "300",
      doc: "How long an unverified factor lives without a challenge before it is removed; at least 300 seconds.",
    }),
    phoneOtpLength: setting("MFA_PHONE_OTP_LENGTH", OTP_LENGTH, {
      default: "6",
      doc: "Digits of a phone factor's code, 6 to 10.",
    }),
    phoneMaxFrequencySeconds: setting("MFA_PHONE_MAX_FREQUENCY", seconds(), {
      default: "60",
      doc: "Time between two codes texted for one phone factor.",
    }),
    rateLimitChallengeAndVerify: setting("MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY", wholeNumber({ min: 1 }), {
      default: "15",
      doc: "Challenges, and verifications, per client per minute.",
    }),
    webAuthnEnrollEnabled: setting("MFA_WEB_AUTHN_ENROLL_ENABLED", flag, {
      default: "false",
      doc: "Users may enroll WebAuthn factors (security keys, a device's passkey as a second factor); needs WEBAUTHN_RP_*.",
    }),
    webAuthnVerifyEnabled: setting("MFA_WEB_AUTHN_VERIFY_ENABLED", flag, {
      default: "false",
      doc: "WebAuthn factors may be challenged and verified; needs WEBAUTHN_RP_*.",
    }),
  },
  sessions: {
    timeboxSeconds: setting("SESSIONS_TIMEBOX", seconds(), {
      doc:
        "How long a session may live from its sign-in (`24h`, `7d` as `168h`); past it, its refresh token is refused " +
        "(`session_expired`) and its access tokens stop being accepted. None when unset or 0.",
    }),
    inactivityTimeoutSeconds: setting("SESSIONS_INACTIVITY_TIMEOUT", seconds(), {
      doc:
        "How long a session may go without a refresh; past it, its refresh token is refused (`session_expired`, " +
        "Inactivity). None when unset or 0.",
    }),
    allowLowAalSeconds: setting("SESSIONS_ALLOW_LOW_AAL", seconds(), {
      doc:
        "How long a session may stay at aal1 once its user has a verified MFA factor; past it, its refresh token " +
        "is refused (`session_expired`, Low AAL) until the user signs in again and verifies. None when unset or 0.",
    }),
    singlePerUser: setting("SESSIONS_SINGLE_PER_USER", flag, {
      default: "false",
      doc:
        "A user keeps one session: the one refreshed (else signed in) last; any other is refused at its next refresh " +
        "(`session_expired`, Revoked by Newer Login), and its access tokens last until they expire. A third-party " +
        "app's session (the OAuth server's) is counted only against that app's.",
    }),
  },
  oauthServer: {
    enabled: setting("OAUTH_SERVER_ENABLED", flag, {
      default: "false",
      doc:
        "Latchkey acts as an OAuth 2.1 and OpenID Connect provider for third-party apps, CLIs and MCP clients " +
        "(/oauth/*, /admin/oauth/clients); needs OAUTH_SERVER_AUTHORIZATION_PATH.",
    }),
    allowDynamicRegistration: setting("OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION", flag, {
      default: "false",
      doc: "Clients may register themselves at POST /oauth/clients/register (RFC 7591), as MCP clients do.",
    }),
    authorizationPath: setting("OAUTH_SERVER_AUTHORIZATION_PATH", text, {
      required: { when: "OAUTH_SERVER_ENABLED", is: true },
      doc:
        "The app's consent page, a path on SITE_URL (`/oauth/consent`): /oauth/authorize sends the browser there " +
        "with `?authorization_id=`, and the page approves or denies through auth.oauth.",
    }),
    authorizationTtlSeconds: setting("OAUTH_SERVER_AUTHORIZATION_TTL", seconds({ positive: true }), {
      default: "10m",
      doc: "How long an authorization request can be consented to and its code exchanged.",
    }),
    defaultScope: setting("OAUTH_SERVER_DEFAULT_SCOPE", text, {
      default: "email",
      doc: "The scope of an authorization request that names none.",
    }),
  },
  customOAuth: {
    enabled: setting("CUSTOM_OAUTH_ENABLED", flag, {
      default: "true",
      doc:
        "Admins may add OAuth 2.0 and OpenID Connect providers at run time (/admin/custom-providers), reached at " +
        "/authorize?provider=custom:<name>.",
    }),
    maxProviders: setting("CUSTOM_OAUTH_MAX_PROVIDERS", wholeNumber({ min: 0 }), {
      default: "0",
      doc: "How many custom providers there may be; 0, the default, sets no limit.",
    }),
    externalUrl: setting("CUSTOM_OAUTH_EXTERNAL_URL", httpUrl, {
      doc: "The base of the callback custom providers send the browser back to (`<base>/callback`): API_EXTERNAL_URL when unset.",
    }),
    allowLoopbackUrls: setting("CUSTOM_OAUTH_ALLOW_LOOPBACK_URLS", flag, {
      default: "false",
      doc:
        "Custom providers' URLs may use http and this machine's addresses, for local development and tests " +
        "(ours); private and link-local addresses stay refused. Never on in production.",
    }),
  },
  saml: {
    enabled: setting("SAML_ENABLED", flag, {
      default: "false",
      doc:
        "Enterprise single sign-on through SAML 2.0 identity providers (POST /sso, /sso/saml/*), which admins add " +
        "at /admin/sso/providers; needs SAML_PRIVATE_KEY.",
    }),
    privateKey: setting("SAML_PRIVATE_KEY", samlPrivateKey, {
      required: { when: "SAML_ENABLED", is: true },
      doc:
        "The service provider's RSA key (2048 bits or more, exponent 65537), base64 of its PKCS#1 DER form " +
        "(`openssl genrsa 2048 | openssl rsa -traditional -outform DER | base64 -w0`): it signs AuthnRequests " +
        "and the metadata, and decrypts assertions when SAML_ALLOW_ENCRYPTED_ASSERTIONS is on.",
    }),
    privateKeyNext: setting("SAML_PRIVATE_KEY_NEXT", samlPrivateKey, {
      doc:
        "The key to rotate to, as SAML_PRIVATE_KEY: its certificate is published beside the current one (and the " +
        "metadata cached for an hour only) so identity providers learn it before it replaces the current key.",
    }),
    allowEncryptedAssertions: setting("SAML_ALLOW_ENCRYPTED_ASSERTIONS", flag, {
      default: "false",
      doc: "Identity providers may encrypt their assertions to the service provider's key.",
    }),
    relayStateValiditySeconds: setting("SAML_RELAY_STATE_VALIDITY_PERIOD", seconds({ positive: true }), {
      default: "2m",
      doc: "How long an identity provider may take to answer a sign-in sent to it (POST /sso to the ACS).",
    }),
    externalUrl: setting("SAML_EXTERNAL_URL", httpUrl, {
      doc:
        "The base of the service provider's URLs, its EntityID `<base>/sso/saml/metadata` and its ACS " +
        "`<base>/sso/saml/acs`: API_EXTERNAL_URL when unset.",
    }),
    rateLimitAssertion: setting("SAML_RATE_LIMIT_ASSERTION", countPer(300), {
      default: "15",
      doc: "Answers of identity providers posted to the ACS per client per 5 minutes.",
    }),
    idpInitiatedEnabled: setting("SAML_IDP_INITIATED_ENABLED", flag, {
      default: "true",
      doc:
        "The ACS takes sign-ins started at the identity provider (an app's tile in its portal), which no POST /sso " +
        "asked for, as Supabase Auth always does (ours). Such a sign-in cannot be bound to a browser's PKCE " +
        "verifier: turn it off when every sign-in starts in the app.",
    }),
  },
  web3: {
    solanaEnabled: setting("EXTERNAL_WEB3_SOLANA_ENABLED", flag, {
      default: "false",
      doc: "Sign-in with a Solana wallet: a signed Sign-In-With-Solana message (POST /token?grant_type=web3).",
    }),
    solanaMaximumValiditySeconds: setting(
      "EXTERNAL_WEB3_SOLANA_MAXIMUM_VALIDITY_DURATION",
      seconds({ positive: true }),
      {
        default: "10m",
        doc:
          "How long after its Issued At a signed Solana message signs in, and how far ahead of the server's clock its " +
          "Issued At may be. Each message signs in once (ours).",
      },
    ),
    ethereumEnabled: setting("EXTERNAL_WEB3_ETHEREUM_ENABLED", flag, {
      default: "false",
      doc: "Sign-in with an Ethereum wallet: a signed Sign-In-With-Ethereum (EIP-4361) message (POST /token?grant_type=web3).",
    }),
    ethereumMaximumValiditySeconds: setting(
      "EXTERNAL_WEB3_ETHEREUM_MAXIMUM_VALIDITY_DURATION",
      seconds({ positive: true }),
      {
        default: "10m",
        doc: "As EXTERNAL_WEB3_SOLANA_MAXIMUM_VALIDITY_DURATION, for Ethereum messages.",
      },
    ),
  },
  passkey: {
    enabled: setting("PASSKEY_ENABLED", flag, {
      default: "false",
      doc: "Users may register passkeys and sign in with them, without a password (/passkeys); needs WEBAUTHN_RP_*.",
    }),
    maxPerUser: setting("PASSKEY_MAX_PASSKEYS_PER_USER", wholeNumber({ min: 1 }), {
      default: "10",
      doc: "Passkeys one user may register.",
    }),
  },
  webauthn: {
    rpId: setting("WEBAUTHN_RP_ID", text, {
      doc:
        "The relying party id: the domain passkeys and WebAuthn factors are bound to, the app's host or a parent " +
        "domain of it (`example.com` for `https://app.example.com`). Required with passkeys or WebAuthn factors on.",
    }),
    rpDisplayName: setting("WEBAUTHN_RP_DISPLAY_NAME", text, {
      doc: "The name authenticators show for the relying party. Required with passkeys or WebAuthn factors on.",
    }),
    rpOrigins: setting("WEBAUTHN_RP_ORIGINS", list, {
      doc:
        "The origins of the pages that run the ceremonies, comma-separated (`https://app.example.com`); each must be " +
        "on WEBAUTHN_RP_ID or under it. Required with passkeys or WebAuthn factors on.",
    }),
    challengeExpirySeconds: setting("WEBAUTHN_CHALLENGE_EXPIRY_DURATION", seconds({ positive: true }), {
      default: "5m",
      doc: "How long a passkey ceremony begun can be answered.",
    }),
    userVerification: setting("WEBAUTHN_USER_VERIFICATION", oneOf(["required", "preferred", "discouraged"]), {
      default: "preferred",
      doc:
        "Whether passkey ceremonies require the authenticator to verify its user (a PIN, a fingerprint), ours: " +
        "`preferred` (GoTrue's) asks and accepts a passkey that did not; `required` refuses it.",
    }),
  },
  console: {
    enabled: setting("CONSOLE_ENABLED", flag, {
      default: "false",
      doc:
        "The admin console at /console: users, the audit log, the effective settings and health, in a browser. " +
        "It signs in with a service-role key (kept in the tab's session storage) or the password of an account " +
        "whose token's `role` is in JWT_ADMIN_ROLES, and does everything through the admin API. Its files are " +
        "built by `pnpm build`; without them the start stops. Off, /console is not served.",
    }),
  },
  hooks: hooksSettings,
  /** Inherited multi-instance mode, which Latchkey does not have: read only to refuse it (see checks.ts). */
  multiInstance: {
    operatorToken: setting("OPERATOR_TOKEN", text, {
      doc: "Ignored, with a warning: it belongs to multi-instance mode.",
    }),
    apiEndpoint: setting("API_ENDPOINT", text, { doc: "Refused: multi-instance mode is not supported." }),
    enabled: setting("MULTI_INSTANCE_MODE", flag, {
      default: "false",
      doc: "Refused when true: multi-instance mode is not supported.",
    }),
  },
} as const;

/** A setting's name, without the AUTH_ prefix. */
export type SettingKey = KeysOf<typeof SETTINGS>;

/**
 * security: values of these settings never appear in an error message. Matched by name so that a new
 * credential-like setting is hidden without anyone remembering to mark it; DATABASE_URL and REDIS_URL carry
 * passwords.
 */
export function isSecret(key: string): boolean {
  return /SECRET|_PASS$|_TOKEN$|_KEYS?(_NEXT)?$|^DATABASE_URL$|^REDIS_URL$|_HEADERS$|^SMS_TEST_OTP$/.test(key);
}
