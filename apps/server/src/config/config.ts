import type { SigningAlgorithm } from "@latchkey/adapters-crypto";
import type { ValuesOf } from "./setting.ts";
import type { LOG_LEVELS, SETTINGS } from "./settings.ts";

/** Development when no database URL is set: an embedded database, a generated JWT secret and key, mail to the log. */
export type Profile = "development" | "production";

export type LogLevel = (typeof LOG_LEVELS)[number];

/** Every declared setting's value, grouped as declared (settings.ts). */
export type Settings = ValuesOf<typeof SETTINGS>;

/**
 * The whole configuration, read once at start; frozen. Durations are seconds. It is the declared settings, with
 * what is worked out from several of them (or from the profile) in place of their raw values.
 */
export interface Config extends Omit<Settings, "siteUrl" | "api" | "db" | "jwt" | "mailer" | "smtp" | "multiInstance"> {
  readonly profile: Profile;
  /** Said at start, one log line each: settings accepted that have no effect. */
  readonly warnings: readonly string[];
  /** SITE_URL; in the development profile, a local app's URL when unset. */
  readonly siteUrl: string;
  readonly api: Settings["api"] & {
    /** API_EXTERNAL_URL; in the development profile, this server's local URL when unset. */
    readonly externalUrl: string;
  };
  readonly db: DbConfig;
  readonly jwt: Omit<Settings["jwt"], "validMethods"> & {
    /** JWT_SECRET; in the development profile, one generated once into the data folder. */
    readonly secret: string;
    /** JWT_ISSUER, else API_EXTERNAL_URL. */
    readonly issuer: string;
    /** JWT_VALID_METHODS, else the algorithms of the ring and HS256. */
    readonly validMethods: readonly SigningAlgorithm[];
  };
  readonly mailer: Omit<Settings["mailer"], "maxFrequencySeconds"> & {
    /** SMTP_MAX_FREQUENCY, default 900: between signup confirmations, and between email change confirmations. */
    readonly confirmationFrequencySeconds: number;
    /** SMTP_MAX_FREQUENCY when set, else 60: between sign-in mails (magic links, recoveries) and nonces. */
    readonly linkFrequencySeconds: number;
  };
  /** Undefined in development when no SMTP server is configured: mail is written to the log. */
  readonly smtp: SmtpConfig | undefined;
}

/** Exactly one of `url` (production) and `embeddedDataDir` (development) is set. */
export type DbConfig = Omit<Settings["db"], "url" | "driver" | "namespace"> & {
  readonly driver: "postgres";
  /** DB_NAMESPACE; empty for none. */
  readonly namespace: string;
} & (
    | { readonly url: string; readonly embeddedDataDir: undefined }
    | { readonly url: undefined; readonly embeddedDataDir: string }
  );

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
