import { type Auth, AuthError } from "@latchkey/domain";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "./app-env.ts";
import { apiVersionHeader } from "./errors/api-version.ts";
import { errorResponse, handleAuthErrors } from "./errors/error-response.ts";
import type { Logger } from "./logger.ts";
import { cors } from "./middleware/cors.ts";
import { requestId } from "./middleware/request-id.ts";
import { requestLog } from "./middleware/request-log.ts";
import type { PublicSettings } from "./present/settings.ts";
import type { ClientAddress } from "./request-context.ts";
import { healthRoutes } from "./routes/health.ts";
import type { RouteDeps } from "./routes/route-deps.ts";
import { signupRoutes } from "./routes/signup.ts";
import { tokenRoutes } from "./routes/token.ts";
import { userRoutes } from "./routes/user.ts";
import { inviteRoutes } from "./routes/invite.ts";
import { type ActionLink, adminRoutes } from "./routes/admin.ts";
import { mailRoutes, signInByMailRoutes } from "./routes/mail.ts";
import { verifyRoutes } from "./routes/verify.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
const BODILESS_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

export interface HttpAppOptions {
  readonly auth: Auth;
  readonly log: Logger;
  readonly settings: PublicSettings;
  readonly version: string;
  /** REQUEST_ID_HEADER */
  readonly requestIdHeader?: string | undefined;
  readonly clientAddress?: ClientAddress;
  /** How a generated link is built from the mail it stands for: as the mailer builds links (API_EXTERNAL_URL, MAILER_URLPATHS_*). */
  readonly actionLink: ActionLink;
}

/** The GoTrue HTTP contract over the use cases. */
export function createHttpApp(options: HttpAppOptions): Hono<AppEnv> {
  const deps: RouteDeps = {
    auth: options.auth,
    settings: options.settings,
    version: options.version,
    clientAddress: options.clientAddress ?? (() => null),
  };
  const app = new Hono<AppEnv>();
  app.use(requestId(options.log, options.requestIdHeader));
  app.use(requestLog());
  // A browser app talks to the server directly, with the headers the official client sends.
  app.use(
    cors({
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
    }),
  );
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) =>
      errorResponse(c, new AuthError("request_entity_too_large", `Request body too large (max ${MAX_BODY_BYTES} bytes)`), 413),
  });
  // Only where a body is read: asking a GET for its body makes @hono/node-server build a whole web Request, which
  // would cost every read request more than its own work.
  app.use((c, next) => (BODILESS_METHODS.has(c.req.method) ? next() : limitBody(c, next)));

  app.route("/", healthRoutes(deps));
  app.route("/", signupRoutes(deps));
  app.route("/", tokenRoutes(deps));
  app.route("/", userRoutes(deps));
  app.route("/", verifyRoutes(deps));
  app.route("/", signInByMailRoutes(deps));
  app.route("/", mailRoutes(deps));
  app.route("/", inviteRoutes(deps));
  app.route("/", adminRoutes({ ...deps, actionLink: options.actionLink }));

  app.notFound((c) => errorResponse(c, new AuthError("not_found", "Not Found"), 404));
  app.onError(handleAuthErrors());
  return app;
}

export { apiVersionHeader };
