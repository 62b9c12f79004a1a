import { type Auth, AuthError } from "@latchkey/domain";
import { Hono, type MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env.ts";
import { type ConsoleFiles, mountConsole } from "./console-routes.ts";
import { errorResponse, handleAuthErrors } from "./errors/error-response.ts";
import type { ActionLink, EffectiveSettings, OAuthFlowCookie, Readiness, SigningKeys } from "./handlers/deps.ts";
import type { Logger } from "./logger.ts";
import { cors } from "./middleware/cors.ts";
import { requestId } from "./middleware/request-id.ts";
import { requestLog } from "./middleware/request-log.ts";
import { securityHeaders } from "./middleware/security-headers.ts";
import type { PublicSettings } from "./present/settings.ts";
import { type ClientAddress, identifyCaller } from "./request/envelope.ts";
import { type BodyReader, bodyTooLarge, MAX_BODY_BYTES, readWebBody } from "./request/request-body.ts";
import { type DefaultHeaders, viaWebResponse } from "./response/default-headers.ts";
import { apiRoutes } from "./routes.ts";

const BODILESS_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);
/** Where a Supabase project serves its auth API, and so where supabase-js looks for it. */
const SUPABASE_AUTH_PATH = "/auth/v1";

export interface HttpAppOptions {
  readonly auth: Auth;
  readonly log: Logger;
  readonly settings: PublicSettings;
  readonly version: string;
  /** REQUEST_ID_HEADER */
  readonly requestIdHeader?: string | undefined;
  readonly clientAddress?: ClientAddress;
  /** How request bodies are read; by default from the web Request. */
  readonly readBody?: BodyReader;
  /** How the headers every answer carries (security, CORS) are added to it; by default through the web Response. */
  readonly defaultHeaders?: DefaultHeaders;
  /** How a generated link is built from the mail it stands for: as the mailer builds links (API_EXTERNAL_URL, MAILER_URLPATHS_*). */
  readonly actionLink: ActionLink;
  /** What /.well-known publishes: the public keys of JWT_KEYS, and the algorithms tokens may have. */
  readonly signingKeys: SigningKeys;
  /** What GET /ready checks (the database; Redis and SMTP when configured), and which failures answer 503. */
  readonly readiness: Readiness;
  /** What GET /admin/settings answers: the settings the server started with, secrets redacted, and their profile. */
  readonly effectiveSettings: EffectiveSettings;
  /** Where the cookie binding an OAuth sign-in to its browser goes; by default every path, not `Secure` (tests). */
  readonly oauthFlowCookie?: OAuthFlowCookie;
  /**
   * API_MAX_REQUEST_DURATION in milliseconds: each request's deadline, counted from when its handling starts (its
   * headers have arrived; its body is read within it). Its use cases get it (Auth.within), and the database gives
   * each statement what is left of it, so that PostgreSQL, not a timer here, ends work that overruns: a request is
   * never told it failed while its write may still commit. Without it a request has no deadline of its own.
   */
  readonly requestDurationMs?: number | undefined;
  /**
   * TRACING_ENABLED: the middleware that makes a span per request (`requestSpans` of `@latchkey/http-hono/tracing`).
   * Without it, no tracing middleware is installed and nothing of OpenTelemetry is loaded.
   */
  readonly requestSpans?: MiddlewareHandler<AppEnv> | undefined;
  /**
   * METRICS_ENABLED: the middleware that records each request's duration and status (`requestMetrics` of
   * `@latchkey/http-hono/tracing`). Without it, no metrics middleware is installed.
   */
  readonly requestMetrics?: MiddlewareHandler<AppEnv> | undefined;
  /** CONSOLE_ENABLED: the admin console's built files, served at /console. Without them /console is a 404. */
  readonly console?: ConsoleFiles | undefined;
}

/** The GoTrue HTTP contract over the use cases. */
export function createHttpApp(options: HttpAppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // The deadline first, so that it counts from the start of the handling; then the span, so that it covers
  // everything the request does.
  const { auth, requestDurationMs } = options;
  app.use((c, next) => {
    c.set("auth", requestDurationMs === undefined ? auth : auth.within(Date.now() + requestDurationMs));
    return next();
  });
  if (options.requestSpans) app.use(options.requestSpans);
  if (options.requestMetrics) app.use(options.requestMetrics);
  app.use(requestId(options.log, options.requestIdHeader));
  app.use(requestLog(options.log));
  const defaultHeaders = options.defaultHeaders ?? viaWebResponse;
  app.use(securityHeaders(defaultHeaders));
  app.use(identifyCaller(options.clientAddress ?? (() => null)));
  // A browser app talks to the server directly, with the headers the official client sends.
  app.use(
    cors(
      {
        allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
        allowHeaders: [
          "Accept",
          "Authorization",
          "Content-Type",
          "apikey",
          "X-Client-Info",
          "X-Client-IP",
          "X-JWT-AUD",
          "x-use-cookie",
          "X-Supabase-Api-Version",
        ],
        exposeHeaders: ["X-Total-Count", "Link", "X-Supabase-Api-Version", "x-sb-error-code"],
        maxAgeSeconds: 600,
      },
      defaultHeaders,
    ),
  );
  const readBody = options.readBody ?? readWebBody;
  // A declared length over the limit is refused before anything is read, whether or not the route reads a body.
  // Asking a GET for its body would make @hono/node-server build a whole web Request, which would cost every read
  // request more than its own work: bodiless methods get no reader.
  app.use((c, next) => {
    if (BODILESS_METHODS.has(c.req.method)) return next();
    if (Number(c.req.header("content-length")) > MAX_BODY_BYTES) throw bodyTooLarge();
    let read: Promise<Uint8Array | null> | undefined;
    c.set("body", () => (read ??= readBody(c, MAX_BODY_BYTES)));
    return next();
  });

  const { settings, version, actionLink, signingKeys, readiness, effectiveSettings } = options;
  const oauthFlowCookie = options.oauthFlowCookie ?? { secure: false, callbackPath: () => "/" };
  if (options.console) mountConsole(app, options.console);
  const deps = { auth, settings, version, actionLink, signingKeys, readiness, oauthFlowCookie, effectiveSettings };
  const { api } = apiRoutes(deps);
  // The same API at the root and under /auth/v1, where supabase-js's createClient(url, key) calls it (as a
  // Supabase project's gateway serves it), so that an app works with nothing in front.
  app.route("/", api);
  app.route(SUPABASE_AUTH_PATH, api);

  app.notFound((c) => errorResponse(c, new AuthError("not_found", "Not Found"), 404));
  app.onError(handleAuthErrors());
  return app;
}
