import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import type { Logger } from "../logger.ts";

const SANE_ID = /^[\w.:/+=@-]{1,200}$/;

/**
 * Takes the request id from the header named by REQUEST_ID_HEADER when it carries a sane value, else makes one,
 * and binds it to a per-request logger so every line of the request carries it.
 */
export function requestId(log: Logger, header: string | undefined, scope: RequestScope = (_, next) => next()): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const inherited = header ? c.req.header(header) : undefined;
    const id = inherited !== undefined && SANE_ID.test(inherited) ? inherited : crypto.randomUUID();
    const requestLog = log.child({ request_id: id });
    c.set("requestId", id);
    c.set("log", requestLog);
    await scope({ requestId: id, log: requestLog }, next);
  };
}

/**
 * Runs the rest of the request inside a scope the host provides, so that adapters the domain calls can log with
 * the request's id although they never see the request.
 */
export type RequestScope = (request: { requestId: string; log: Logger }, next: () => Promise<void>) => Promise<void>;
