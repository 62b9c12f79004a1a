import type { AuthEmailKind } from "@latchkey/domain";
import type { UrlPathName } from "./email-kinds.ts";

/** What rendering needs from the configuration. */
export interface RenderOptions {
  /** API_EXTERNAL_URL: every link is built from it, never from anything a request carried. */
  readonly externalUrl: string;
  /** SITE_URL: the `SiteURL` template variable. */
  readonly siteUrl: string;
  /** MAILER_URLPATHS_*: a path appended to the external URL's path, or an absolute http(s) URL. Default /verify. */
  readonly urlPaths?: Readonly<Partial<Record<UrlPathName, string>>>;
  /** MAILER_SUBJECTS_*, by email kind; the kind's own subject where absent. */
  readonly subjects?: Readonly<Partial<Record<AuthEmailKind, string>>>;
}

/** How HTML templates named by URL (MAILER_TEMPLATES_*) are fetched and cached. */
export interface TemplateOptions {
  /** MAILER_TEMPLATES_*: URLs of HTML templates; the built-in body is used where absent or unavailable. */
  readonly templates?: Readonly<Partial<Record<AuthEmailKind, string>>>;
  /** Told about each failed fetch (not about cached failures), so the server can log it. */
  readonly onTemplateError?: (url: string, reason: string) => void;
  /** Default the global fetch; injected by tests. */
  readonly fetch?: typeof fetch;
  /** Milliseconds since the epoch, for the cache; default Date.now. */
  readonly now?: () => number;
  /** Whole fetch, body included; default 5 000 ms. */
  readonly templateTimeoutMs?: number;
  /** Largest template body accepted; default 512 KiB. */
  readonly templateMaxBytes?: number;
  /** How long a fetched template is reused; default 10 minutes. */
  readonly templateCacheMs?: number;
  /** How long a failed URL falls back to the built-in body before it is tried again; default 30 s. */
  readonly templateFailureCacheMs?: number;
}

/** Rendering plus templates: what both mailers share. */
export interface MailerOptions extends RenderOptions, TemplateOptions {}

export interface SmtpMailerOptions extends MailerOptions {
  /** SMTP_HOST */
  readonly host: string;
  /** SMTP_PORT: 465 means implicit TLS; any other port upgrades with STARTTLS when the server offers it. */
  readonly port: number;
  /** SMTP_USER / SMTP_PASS: both, or neither for an unauthenticated relay. */
  readonly user?: string | undefined;
  readonly pass?: string | undefined;
  /** SMTP_ADMIN_EMAIL: the From address. */
  readonly adminEmail: string;
  /** SMTP_SENDER_NAME; default the admin email. */
  readonly senderName?: string | undefined;
  /** To resolve the host and open the connection; default SMTP_CONNECTION_TIMEOUT_MS (10 s). */
  readonly connectionTimeoutMs?: number;
  /** For the server's greeting once connected; default SMTP_GREETING_TIMEOUT_MS (10 s). */
  readonly greetingTimeoutMs?: number;
  /** For each command's reply, the message's included; default SMTP_COMMAND_TIMEOUT_MS (15 s). */
  readonly commandTimeoutMs?: number;
  /** For a whole attempt, connection to acceptance; default SMTP_ATTEMPT_TIMEOUT_MS (30 s). */
  readonly attemptTimeoutMs?: number;
}

/** One email as the log mailer writes it. */
export interface LogEntry {
  /** The outbox message's id, the same on every attempt at it. */
  readonly messageId: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly link?: string;
  readonly code?: string;
}

export interface LogMailerOptions extends MailerOptions {
  /** Receives each rendered email instead of a mail server. */
  readonly write: (entry: LogEntry) => void;
}
