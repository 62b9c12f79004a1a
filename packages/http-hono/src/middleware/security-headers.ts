import type { MiddlewareHandler } from "hono";
import type { DefaultHeaders } from "../response/default-headers.ts";

/**
 * Headers every answer carries: no MIME sniffing, no Referer sent on from a page the API served, and no caching by
 * the browser or any proxy, since answers carry sessions, tokens, codes and personal data (a route that may be
 * cached sets its own Cache-Control). Added to the finished answer, as cors.ts explains.
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

export function securityHeaders(addDefaults: DefaultHeaders): MiddlewareHandler {
  return async (c, next) => {
    await next();
    addDefaults(c, SECURITY_HEADERS);
  };
}
