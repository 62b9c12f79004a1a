import type { PGlite } from "@electric-sql/pglite";
import {
  createArgon2PasswordHasher,
  createJwtSigner,
  cryptoRandom,
  totpAuthenticator,
} from "@latchkey/adapters-crypto";
import { oauthProviderCatalog } from "@latchkey/adapters-oauth";
import { createPostgres, type Postgres } from "@latchkey/adapters-postgres";
import { createSamlMetadataReader } from "@latchkey/adapters-saml";
import {
  type Auth,
  type Clock,
  createAuth,
  type Mailer,
  type Ports,
  type SamlServiceProvider,
  type Web3Verifier,
  type WebAuthnCeremony,
} from "@latchkey/domain";
import { type ConsoleFiles, createHttpApp, type EffectiveSettings, type Readiness } from "@latchkey/http-hono";
import type { Logger } from "pino";
import packageJson from "../package.json" with { type: "json" };
import { type Config, type EffectiveSettings as SettingsReport, toPolicy } from "./config/index.ts";
import { logListenConnection } from "./delivery/listen-connection-log.ts";
import { type ConfiguredMailer, createActionLink, createMailer } from "./delivery/mailer.ts";
import { type OutboxWorker, startOutboxWorker } from "./delivery/outbox-worker.ts";
import { createConfiguredSmsSender } from "./delivery/sms-sender.ts";
import { type SmtpAvailability, watchSmtpAvailability } from "./delivery/smtp-availability.ts";
import { createConfiguredHooks } from "./hooks/configured-hooks.ts";
import { createClientAddress } from "./http/client-address.ts";
import { builtConsole } from "./http/console-files.ts";
import { type DrainingReadiness, drainingReadiness } from "./http/draining-readiness.ts";
import { nodeDefaultHeaders } from "./http/node-default-headers.ts";
import { readNodeBody } from "./http/node-request-body.ts";
import { publicSettings } from "./http/public-settings.ts";
import { configuredReadiness } from "./http/readiness.ts";
import { deliveryLog, eachOf } from "./logging/delivery-log.ts";
import { failureFields } from "./logging/outage-log.ts";
import { securityLog } from "./logging/security-log.ts";
import { type CleanupWorker, startCleanupWorker } from "./maintenance/cleanup-worker.ts";
import { type Metrics, startMetrics } from "./observability/metrics.ts";
import { startTracing, type Tracing } from "./observability/tracing.ts";
import { type ConfiguredRateLimiter, createRateLimiter } from "./rate-limiting/create-rate-limiter.ts";
import { factorSecretsOf, storedSecretsOf } from "./secrets/stored-secrets.ts";
import { createConfiguredCaptcha } from "./sign-in/captcha.ts";
import { createConfiguredCustomProviders } from "./sign-in/custom-providers.ts";
import { createConfiguredOAuthProviders, oauthFlowCookie } from "./sign-in/oauth-providers.ts";
import { createConfiguredPwnedPasswords } from "./sign-in/pwned-passwords.ts";
import { createConfiguredSamlServiceProvider } from "./sign-in/saml.ts";
import { createConfiguredWeb3Verifier } from "./sign-in/web3.ts";
import { createConfiguredWebAuthn } from "./sign-in/webauthn.ts";

export const version = packageJson.version;

const systemClock: Clock = {
  now: () => new Date(),
  sleep: (milliseconds) => new Promise((resolve) => setTimeout(resolve, Math.max(0, milliseconds))),
};

/**
 * Fetching an identity provider's metadata (an admin's POST or PUT of /admin/sso/providers with a metadata_url):
 * well within a request's deadline, and ample for the largest metadata in use (Entra ID's, tens of KiB).
 */
const SAML_METADATA_LIMITS = { timeoutMs: 5_000, maxBytes: 1024 * 1024 } as const;

/**
 * Supabase Auth's 100 rows per statement; up to 5,000 of a kind per pass before the next pass; after each statement
 * a pause three times as long as it took, so that a backlog holds at most a quarter of one connection, which still
 * deletes thousands of rows a second beside a server at its limit (bench/README.md, "The clean-up").
 */
const CLEANUP_BATCHES = { batchSize: 100, batchesPerKind: 50, pause: 3 } as const;

export interface Server {
  readonly app: ReturnType<typeof createHttpApp>;
  readonly postgres: Postgres;
  /**
   * Starts delivering queued mail and SMS, and the clean-up of stale rows when DB_CLEANUP_ENABLED; call once the
   * schema is migrated.
   */
  startWorkers(): Promise<void>;
  /** Times a password hash and a write here, for the timing pads that hide accounts; call once migrated. */
  calibrateTimings(): Promise<void>;
  /** Turns GET /ready to 503 for good: the server is draining on its way out (README, "Shutdown"). */
  startDraining(): void;
  /**
   * Stops delivery (a drain of at most 5 s for mail in flight and due), closes the database, then exports the spans
   * still buffered (at most 5 s) and the last metrics (at most 5 s); the HTTP listener is the caller's.
   */
  close(): Promise<void>;
}

export interface ServerOptions {
  /**
   * What GET /admin/settings lists: the settings as read from the same sources as `config`, secrets redacted
   * (effectiveSettings, as `latchkey config` shows them). The configuration keeps no raw values, so the caller reads
   * them when it loads it.
   */
  readonly settings: SettingsReport;
  /** Ports to use instead of the configured ones (tests). */
  readonly overrides?: Partial<Ports>;
  /**
   * Without DATABASE_URL, an open in-memory PGlite to work on, shared with other instances in this process, in
   * place of the embedded database (tests run several instances on one database).
   */
  readonly sharedEmbeddedDatabase?: PGlite | undefined;
  /** With CONSOLE_ENABLED, the folder of a console build to serve, in place of the one `pnpm build` makes (tests). */
  readonly consoleDir?: string | undefined;
}

/**
 * The only place that knows every package: builds the adapters from the configuration and wires them. With
 * TRACING_ENABLED, tracing starts first, so that the database, the mailer and the HTTP layer are built traced; with
 * METRICS_ENABLED, metrics start before it and stop after it.
 */
export async function createServer(config: Config, log: Logger, options: ServerOptions): Promise<Server> {
  const metrics = await startMetrics(config, log, version);
  try {
    const tracing = await startTracing(config, log, version);
    try {
      return await compose({ config, log, tracing, metrics }, options);
    } catch (error) {
      await tracing?.shutdown();
      throw error;
    }
  } catch (error) {
    await metrics?.shutdown();
    throw error;
  }
}

/** What every step of the wiring reads: the configuration, the log, and tracing and metrics (null when off). */
interface Wiring {
  readonly config: Config;
  readonly log: Logger;
  readonly tracing: Tracing | null;
  readonly metrics: Metrics | null;
}

/** The HTTP layer's span and metric middleware, loaded only when tracing or metrics are on. */
type Observed = typeof import("@latchkey/http-hono/tracing");

/** The mail side of delivery: the configured mailer, the SMTP watch (SMTP only), and the mailer the domain gets. */
interface MailDelivery {
  readonly mail: ConfiguredMailer;
  readonly smtp: SmtpAvailability | undefined;
  readonly mailer: Mailer;
}

/** The adapters that need closing, and what the returned server drives. */
interface Parts {
  readonly app: ReturnType<typeof createHttpApp>;
  readonly postgres: Postgres;
  readonly auth: Auth;
  readonly delivery: MailDelivery;
  readonly limits: ConfiguredRateLimiter;
  readonly readiness: DrainingReadiness;
}

async function compose(
  wiring: Wiring,
  { overrides = {}, sharedEmbeddedDatabase, settings, consoleDir }: ServerOptions,
): Promise<Server> {
  const { config, log, tracing, metrics } = wiring;
  // First: a console switched on but not built stops the start before anything is opened.
  const consoleFiles = builtConsole(config, consoleDir);
  const observed = tracing || metrics ? await import("@latchkey/http-hono/tracing") : undefined;
  const postgres = await openDatabase(wiring, sharedEmbeddedDatabase);
  const delivery = await startMailDelivery(wiring);
  const limits = await createRateLimiter(config, log);
  const webauthn = await createConfiguredWebAuthn(config);
  const samlServiceProvider = await createConfiguredSamlServiceProvider(config);
  const web3 = await createConfiguredWeb3Verifier(config);
  const configured = configuredPorts(wiring, {
    postgres,
    mailer: delivery.mailer,
    limits,
    webauthn,
    samlServiceProvider,
    web3,
  });
  const ports: Ports = { ...configured, ...overrides };
  const auth = createAuth(ports, toPolicy(config));
  metrics?.observeOutbox(auth.outboxDepth);
  const readiness = drainingReadiness(
    configuredReadiness(config.api.readinessDependencies, {
      database: postgres.checkWritable,
      redis: limits.pingRedis,
      smtp: delivery.smtp?.check,
    }),
  );
  const app = createApp(wiring, {
    auth,
    readiness: readiness.readiness,
    observed,
    effectiveSettings: adminSettings(settings),
    consoleFiles,
  });
  return serverOf(wiring, { app, postgres, auth, delivery, limits, readiness });
}

async function openDatabase({ config, log, tracing, metrics }: Wiring, sharedEmbedded?: PGlite): Promise<Postgres> {
  const postgres = await createPostgres({
    url: config.db.url,
    embeddedDataDir: config.db.embeddedDataDir,
    sharedEmbedded,
    maxPoolSize: config.db.maxPoolSize,
    namespace: config.db.namespace,
    onPoolError: (error) => log.warn(failureFields(error), "an idle database connection failed; it will be replaced"),
    listenConnection: config.db.url === undefined ? undefined : logListenConnection(log, config.db.url),
    tracer: tracing?.tracer,
    // A request's statements get what is left of its API_MAX_REQUEST_DURATION (postgres.within, through
    // Auth.within); other work gets all of it.
    timeouts: { timeoutMs: config.api.maxRequestDurationSeconds * 1000 },
  });
  // PGlite has no pool to observe.
  if (metrics && postgres.poolCounts) metrics.observePool(postgres.poolCounts);
  return postgres;
}

async function startMailDelivery({ config, log, tracing, metrics }: Wiring): Promise<MailDelivery> {
  const mail = createMailer(config, log);
  // Checked now, in the background: a wrong SMTP_HOST is said at start, not after the first sign-up.
  const smtp =
    mail.verify && config.smtp
      ? watchSmtpAvailability({ verify: mail.verify, log, server: `${config.smtp.host}:${config.smtp.port}` })
      : undefined;
  if (metrics && smtp) metrics.observeSmtp(smtp.available);
  const mailer = tracing
    ? (await import("./observability/traced-mailer.ts")).tracedMailer(mail.mailer, tracing.tracer, config.smtp)
    : mail.mailer;
  return { mail, smtp, mailer };
}

/** The ports as the configuration asks for them, before a test's overrides. */
function configuredPorts(
  { config, log, tracing, metrics }: Wiring,
  {
    postgres,
    mailer,
    limits,
    webauthn,
    samlServiceProvider,
    web3,
  }: {
    postgres: Postgres;
    mailer: Mailer;
    limits: ConfiguredRateLimiter;
    webauthn: WebAuthnCeremony | null;
    samlServiceProvider: SamlServiceProvider | null;
    web3: Web3Verifier | null;
  },
): Ports {
  return {
    stores: postgres.stores,
    tx: postgres.tx,
    within: postgres.within,
    hasher: metrics ? metrics.timed(createArgon2PasswordHasher()) : createArgon2PasswordHasher(),
    signer: createJwtSigner({
      secret: config.jwt.secret,
      keyId: config.jwt.keyId,
      ring: config.jwt.keys,
      validMethods: config.jwt.validMethods,
    }),
    secrets: storedSecretsOf(config),
    clock: systemClock,
    random: cryptoRandom,
    mailer,
    sms: createConfiguredSmsSender(config, log),
    rateLimiter: limits.limiter,
    oauthProviders: createConfiguredOAuthProviders(config),
    oauthCatalog: oauthProviderCatalog,
    captcha: createConfiguredCaptcha(config),
    pwnedPasswords: createConfiguredPwnedPasswords(config),
    samlMetadata: createSamlMetadataReader(SAML_METADATA_LIMITS),
    samlServiceProvider,
    customProviders: createConfiguredCustomProviders(config),
    totp: totpAuthenticator,
    factorSecrets: factorSecretsOf(config),
    hooks: createConfiguredHooks(config, { tracer: tracing?.tracer, meter: metrics?.meter }),
    webauthn,
    web3,
    events: eachOf(...(metrics ? [metrics.flowEvents] : []), deliveryLog(log), securityLog(log)),
  };
}

/**
 * GET /admin/settings's answer, made once: the setting's name, its value (already redacted: secrets never leave
 * effectiveSettings) or null when it has none to show, and where it came from.
 */
function adminSettings(report: SettingsReport): EffectiveSettings {
  const answer = {
    profile: report.profile,
    settings: report.settings.map(({ name, value, source }) => ({ name, value: value ?? null, source })),
  };
  return () => answer;
}

function createApp(
  { config, log, tracing, metrics }: Wiring,
  {
    auth,
    readiness,
    observed,
    effectiveSettings,
    consoleFiles,
  }: {
    auth: Auth;
    readiness: Readiness;
    observed: Observed | undefined;
    effectiveSettings: EffectiveSettings;
    consoleFiles: ConsoleFiles | undefined;
  },
): ReturnType<typeof createHttpApp> {
  return createHttpApp({
    auth,
    log,
    requestDurationMs: config.api.maxRequestDurationSeconds * 1000,
    settings: publicSettings(config),
    version,
    requestIdHeader: config.api.requestIdHeader,
    requestSpans: tracing && observed ? observed.requestSpans(tracing.tracer) : undefined,
    requestMetrics: metrics && observed ? observed.requestMetrics(metrics.meter) : undefined,
    clientAddress: createClientAddress(config),
    readBody: readNodeBody,
    defaultHeaders: nodeDefaultHeaders,
    actionLink: createActionLink(config),
    oauthFlowCookie: oauthFlowCookie(config),
    signingKeys: {
      jwks: (config.jwt.keys?.keys ?? []).flatMap((key) => (key.publicJwk ? [key.publicJwk] : [])),
      algorithms: config.jwt.validMethods,
    },
    readiness,
    effectiveSettings,
    console: consoleFiles,
  });
}

/** The server's life after wiring: calibration, delivery, draining, and closing in the order each part needs. */
function serverOf({ config, log, tracing, metrics }: Wiring, parts: Parts): Server {
  const { app, postgres, auth, delivery, limits, readiness } = parts;
  let worker: OutboxWorker | undefined;
  let cleanup: CleanupWorker | undefined;
  return {
    app,
    postgres,
    calibrateTimings: async () => {
      const measured = await auth.calibrateTimings();
      log.info({ hash_ms: measured.hashMs, write_ms: measured.writeMs }, "timing pads calibrated");
    },
    startWorkers: async () => {
      if (config.db.cleanupEnabled) {
        cleanup ??= startCleanupWorker({
          pass: (stopping) => auth.cleanUpStaleRows({ ...CLEANUP_BATCHES, stopping }),
          intervalMs: config.db.cleanupIntervalSeconds * 1000,
          log,
        });
      }
      worker ??= await startOutboxWorker({
        claim: (limit) => auth.claimDueMessages({ limit }),
        deliver: (message) => auth.deliverClaimedMessage(message),
        renew: (held) => auth.renewClaims(held),
        subscribe: postgres.onOutboxMessage,
        log,
        // Attempts the drain could not wait for fail at once, so they are rescheduled before the database closes.
        abandon: () => delivery.mail.close(),
      });
    },
    startDraining: readiness.startDraining,
    close: async () => {
      try {
        await worker?.stop();
        await cleanup?.stop();
        delivery.smtp?.stop();
        await delivery.mail.close();
        await limits.close();
        await postgres.close();
      } finally {
        try {
          await tracing?.shutdown();
        } finally {
          await metrics?.shutdown();
        }
      }
    },
  };
}
