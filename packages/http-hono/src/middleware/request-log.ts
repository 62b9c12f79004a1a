import type { RequestContext } from "@latchkey/domain";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import type { Logger } from "../logger.ts";
import { routeOf } from "./request-route.ts";

/** The client chooses its user agent: a longer one is cut, so that a line stays a line. */
const LOGGED_USER_AGENT_LENGTH = 256;

/**
 * One line per request: the route that took it (`/admin/users/{user_id}`, as its span and metrics name it; null
 * when none did), who called (the client address as the deployment resolves it for limits and the audit log, and
 * the user agent), and the error code of a refusal (a refused token is this line and nothing more).
 * security: of the request itself only the path and the user agent are logged. Query strings carry tokens (/verify,
 * /callback), and bodies and the other headers carry passwords, bearer tokens, addresses and phone numbers.
 */
export function requestLog(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    // Set wherever an error is answered, in a body or (/verify, /callback) a redirect; not every answer has the header.
    const errorCode = c.get("errorCode");
    // Set by identifyCaller, after this; unset only if the request was answered before it ran.
    const caller: RequestContext | undefined = c.get("caller");
    // Written through the server's logger, with the request id among the fields: the request's own logger is made
    // only for requests that write more (request-id.ts).
    const fields = {
      request_id: c.get("requestId"),
      method: c.req.method,
      path: c.req.path,
      route: c.get("endpoint") === undefined ? null : routeOf(c),
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      ...(errorCode ? { error_code: errorCode } : {}),
      client_address: caller?.ip ?? null,
      user_agent: caller?.userAgent?.slice(0, LOGGED_USER_AGENT_LENGTH) ?? null,
    };
    if (c.res.status >= 500) log.warn(fields, "request");
    else log.info(fields, "request");
  };
}
