import { mkdtempSync, rmSync } from "node:fs";
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { serve } from "@hono/node-server";
import {
  dropTables,
  randomNamespace,
  sharedEmbeddedTestDatabase,
  testDatabaseUrl,
} from "@latchkey/adapters-postgres/testing";
import { type SmtpSink, startSmtpSink } from "@latchkey/adapters-smtp/testing";
import type { Ports } from "@latchkey/domain";
import { decodeProtectedHeader, importJWK, type JWTVerifyResult, jwtVerify } from "jose";
import { createServer } from "../../src/compose.ts";
import { type Config, type ConfigSources, effectiveSettings, loadConfig } from "../../src/config/index.ts";
import { serverLimits } from "../../src/http/server-limits.ts";
import { createLogger } from "../../src/logging/pino-logger.ts";
import { checkedAgainstDescription } from "./response-check.ts";

export const TEST_JWT_SECRET = "test-jwt-secret-with-at-least-32-characters";

/** What the production profile requires besides a database, with test values (mail goes to a port nobody serves). */
export const REQUIRED_SETTINGS: Readonly<Record<string, string>> = {
  AUTH_DB_DRIVER: "postgres",
  AUTH_SITE_URL: "http://localhost:3000",
  AUTH_API_EXTERNAL_URL: "http://localhost:9999",
  AUTH_JWT_SECRET: TEST_JWT_SECRET,
  AUTH_DB_SECRET: "test-db-secret-with-at-least-32-characters",
  AUTH_SMTP_HOST: "127.0.0.1",
  AUTH_SMTP_PORT: "9",
  AUTH_SMTP_ADMIN_EMAIL: "auth@example.com",
};

/** The production profile on the test database; the development profile (nothing) when there is none. */
export function productionEnv(databaseUrl: string | undefined): Record<string, string> {
  return databaseUrl ? { DATABASE_URL: databaseUrl, ...REQUIRED_SETTINGS } : {};
}

/**
 * What DATABASE_URL says when there is no PostgreSQL server: the production profile is chosen as with one, and the
 * test process's embedded database takes the URL's place (startTestServer).
 */
const EMBEDDED_STAND_IN_URL = "postgres://embedded-test-database.invalid/latchkey";

export interface TestServer {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** The SMTP server the test server delivers mail to. */
  readonly mail: SmtpSink;
  readonly config: Config;
  /** Every log line written so far, parsed. */
  readonly logLines: () => Record<string, unknown>[];
  /** The raw log text, for "never contains" checks. */
  readonly logText: () => string;
  /** The database the server uses, for assertions on what was written. */
  readonly db: Awaited<ReturnType<typeof createServer>>["postgres"];
  fetch(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /**
   * Verifies an access token with the key that signed it, as another service would: the public key of its kid
   * (a JWT_KEYS ring's), else JWT_SECRET.
   */
  verifyAccessToken(token: string): Promise<JWTVerifyResult>;
  /**
   * Follows a link from a mail as a browser would, through this server (standing in for the proxy that
   * API_EXTERNAL_URL names), and returns where the browser is sent next.
   */
  followLink(link: string): Promise<URL>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** An SMTP server to deliver to; by default one of the server's own. */
  readonly mail?: SmtpSink;
  /** Share tables with another test server (several instances, one database). */
  readonly namespace?: string;
  /** Whether close drops the tables; default true. */
  readonly dropTablesOnClose?: boolean;
  /** With AUTH_CONSOLE_ENABLED, a console build to serve (buildConsole of @latchkey/console/build). */
  readonly consoleDir?: string;
}

/**
 * The composed server listening on a random loopback port, configured like production unless `env` says otherwise,
 * on the test database: a namespace of its own on the PostgreSQL server (testDatabaseUrl) or, without one, on this
 * test process's in-memory PGlite, which outlives the server, as a server's database would.
 */
export async function startTestServer(
  /** Settings over the test defaults; `undefined` unsets one. */
  env: Record<string, string | undefined> = {},
  overrides: Partial<Ports> = {},
  options: TestServerOptions = {},
): Promise<TestServer> {
  const cwd = mkdtempSync(join(tmpdir(), "latchkey-test-"));
  const mail = options.mail ?? (await startSmtpSink());
  const databaseUrl = testDatabaseUrl();
  const sources: ConfigSources = {
    cwd,
    dotenv: { text: "" },
    env: {
      ...REQUIRED_SETTINGS,
      DATABASE_URL: databaseUrl ?? EMBEDDED_STAND_IN_URL,
      AUTH_SMTP_PORT: String(mail.port),
      AUTH_DB_NAMESPACE: options.namespace ?? randomNamespace(),
      AUTH_DB_MAX_POOL_SIZE: "8",
      AUTH_LOG_LEVEL: "info",
      // Every request of a test comes from 127.0.0.1: per-address limits high enough that a suite is never one
      // client over them. Tests of the limits set their own.
      AUTH_RATE_LIMIT_TOKEN_REFRESH: "100000",
      AUTH_RATE_LIMIT_VERIFY: "100000",
      AUTH_RATE_LIMIT_OTP: "100000",
      ...env,
    },
  };
  const config = loadConfig(sources);
  // A test that sets its own DATABASE_URL (a proxy, a role) keeps it.
  const embedded = config.db.url === EMBEDDED_STAND_IN_URL ? await sharedEmbeddedTestDatabase() : undefined;
  const runtimeConfig: Config = embedded
    ? { ...config, db: { ...config.db, url: undefined, embeddedDataDir: "memory://" } }
    : config;

  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  const log = createLogger({ level: runtimeConfig.log.level, destination });
  const server = await createServer(runtimeConfig, log, {
    overrides,
    sharedEmbeddedDatabase: embedded,
    consoleDir: options.consoleDir,
    settings: effectiveSettings(sources),
  });
  await server.postgres.migrate();
  await server.calibrateTimings();
  await server.startWorkers();

  const http = await new Promise<HttpServer>((resolve) => {
    const listening = serve(
      {
        fetch: checkedAgainstDescription(server.app.fetch),
        port: 0,
        hostname: "127.0.0.1",
        serverOptions: serverLimits(runtimeConfig.api),
      },
      () => resolve(listening as HttpServer),
    );
  });
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  return {
    url,
    mail,
    config: runtimeConfig,
    db: server.postgres,
    logLines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    logText: () => lines.join("\n"),
    followLink: async (link) => {
      const external = new URL(runtimeConfig.api.externalUrl);
      const target = new URL(link);
      if (target.origin !== external.origin) throw new Error(`${link} does not point at API_EXTERNAL_URL`);
      const response = await fetch(`${url}${target.pathname}${target.search}`, { redirect: "manual" });
      const location = response.headers.get("location");
      if (response.status !== 303 || !location)
        throw new Error(`expected a 303 redirect, got ${response.status}: ${await response.text()}`);
      return new URL(location);
    },
    verifyAccessToken: async (token) => {
      const { kid, alg } = decodeProtectedHeader(token);
      const published = runtimeConfig.jwt.keys?.keys.find((key) => key.kid === kid)?.publicJwk;
      const key = published ? await importJWK(published, alg) : new TextEncoder().encode(runtimeConfig.jwt.secret);
      return jwtVerify(token, key);
    },
    fetch: (path, init = {}) => {
      const { json, ...rest } = init;
      return fetch(`${url}${path}`, {
        ...rest,
        headers: { "content-type": "application/json", ...(rest.headers as Record<string, string> | undefined) },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
    },
    close: async () => {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      try {
        if (options.dropTablesOnClose !== false) await dropTables(server.postgres);
      } finally {
        await server.close();
        if (!options.mail) await mail.close();
      }
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}
