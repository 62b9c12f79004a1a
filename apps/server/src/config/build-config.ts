import { validMethods } from "@latchkey/adapters-crypto";
import type { Config, DbConfig, Profile, Settings, SmtpConfig } from "./config.ts";
import { DEVELOPMENT_SITE_URL, developmentApiUrl, developmentKeyRing, embeddedDatabaseDir } from "./development.ts";

/** What the loader knows beyond the settings. */
export interface BuildContext {
  readonly profile: Profile;
  readonly cwd: string;
  /** JWT_SECRET, else (development only) the generated one. */
  readonly jwtSecret: string;
}

/** compat: SMTP_MAX_FREQUENCY defaults to 900 s, yet magic links and recoveries go out once a minute unless it is set. */
const DEFAULT_CONFIRMATION_FREQUENCY_SECONDS = 900;
const DEFAULT_LINK_FREQUENCY_SECONDS = 60;

/**
 * The configuration from the settings' values: only what several settings (or the profile) decide together. The
 * checks have run: what the profile requires is set, so the development fallbacks below apply only there.
 */
export function buildConfig(settings: Settings, { profile, cwd, jwtSecret }: BuildContext): Omit<Config, "warnings"> {
  const { multiInstance: _refusedOrWarned, mailer, ...rest } = settings;
  const externalUrl = settings.api.externalUrl ?? developmentApiUrl(settings.api.port);
  const { maxFrequencySeconds, ...mailerSettings } = mailer;
  return {
    ...rest,
    profile,
    siteUrl: settings.siteUrl ?? DEVELOPMENT_SITE_URL,
    api: { ...settings.api, externalUrl },
    db: buildDb(settings.db, cwd),
    jwt: buildJwt(settings.jwt, { profile, cwd, jwtSecret }, externalUrl),
    mailer: {
      ...mailerSettings,
      confirmationFrequencySeconds: maxFrequencySeconds ?? DEFAULT_CONFIRMATION_FREQUENCY_SECONDS,
      linkFrequencySeconds: maxFrequencySeconds ?? DEFAULT_LINK_FREQUENCY_SECONDS,
    },
    smtp: buildSmtp(settings.smtp),
    mfa: buildMfa(settings, profile),
  };
}

/**
 * TOTP is off in production while its secrets would have no key of their own (checks.ts: an explicit switch is
 * refused then, the default gives way with a warning).
 */
function buildMfa(settings: Settings, profile: Profile): Settings["mfa"] {
  const keyed =
    profile !== "production" || settings.db.secret !== undefined || settings.security.encryptionKey !== undefined;
  return keyed ? settings.mfa : { ...settings.mfa, totpEnrollEnabled: false, totpVerifyEnabled: false };
}

export function buildJwt(
  jwt: Settings["jwt"],
  { profile, cwd, jwtSecret }: BuildContext,
  externalUrl: string,
): Config["jwt"] {
  const keys = jwt.keys ?? (profile === "development" ? developmentKeyRing(cwd) : undefined);
  return {
    ...jwt,
    secret: jwtSecret,
    issuer: jwt.issuer ?? externalUrl,
    keys,
    validMethods: validMethods(keys, jwt.validMethods),
  };
}

export function buildDb(db: Settings["db"], cwd: string): DbConfig {
  const settings = {
    driver: db.driver,
    maxPoolSize: db.maxPoolSize,
    startupWaitSeconds: db.startupWaitSeconds,
    namespace: db.namespace ?? "",
    secret: db.secret,
    cleanupEnabled: db.cleanupEnabled,
    cleanupIntervalSeconds: db.cleanupIntervalSeconds,
    cleanupOutboxRetentionSeconds: db.cleanupOutboxRetentionSeconds,
  } as const;
  return db.url === undefined
    ? { ...settings, url: undefined, embeddedDataDir: embeddedDatabaseDir(cwd) }
    : { ...settings, url: db.url, embeddedDataDir: undefined };
}

function buildSmtp(smtp: Settings["smtp"]): SmtpConfig | undefined {
  if (smtp.host === undefined) return undefined;
  const adminEmail = checked(smtp.adminEmail);
  return {
    host: smtp.host,
    port: checked(smtp.port),
    user: smtp.user,
    pass: smtp.pass,
    adminEmail,
    senderName: smtp.senderName ?? adminEmail,
  };
}

/** Reads a value that the checks made sure is set. */
function checked<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("a setting that the checks require is missing");
  return value;
}
