import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";

/**
 * One line per request. Only the path is logged: query strings carry tokens (/verify, /callback), and bodies and
 * headers carry passwords and bearer tokens, so neither is ever written.
 */
export function requestLog(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const fields = {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
    };
    if (c.res.status >= 500) c.get("log").warn(fields, "request");
    else c.get("log").info(fields, "request");
  };
}
