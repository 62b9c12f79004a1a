import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";

/**
 * One line per request, with the error code of a refusal (a refused token is this line and nothing more). Only the
 * path is logged: query strings carry tokens (/verify, /callback), and bodies and headers carry passwords and
 * bearer tokens, so neither is ever written.
 */
export function requestLog(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const errorCode = c.res.status >= 400 ? c.res.headers.get("x-sb-error-code") : null;
    const fields = {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      ...(errorCode ? { error_code: errorCode } : {}),
    };
    if (c.res.status >= 500) c.get("log").warn(fields, "request");
    else c.get("log").info(fields, "request");
  };
}
