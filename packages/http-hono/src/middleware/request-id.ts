import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { childOnFirstUse, type Logger } from "../logger.ts";

const SANE_ID = /^[\w.:/+=@-]{1,200}$/;

/**
 * Takes the request id from the header named by REQUEST_ID_HEADER when it carries a sane value, else makes one,
 * and binds it to a per-request logger so every line of the request carries it.
 */
export function requestId(log: Logger, header: string | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const inherited = header ? c.req.header(header) : undefined;
    const id = inherited !== undefined && SANE_ID.test(inherited) ? inherited : crypto.randomUUID();
    c.set("requestId", id);
    c.set("log", childOnFirstUse(log, { request_id: id }));
    await next();
  };
}
