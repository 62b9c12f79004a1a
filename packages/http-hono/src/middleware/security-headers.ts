import type { MiddlewareHandler } from "hono";

/**
 * Headers every answer carries: no MIME sniffing, no Referer sent on from a page the API served, and no caching by
 * the browser or any proxy, since answers carry sessions, tokens, codes and personal data (a route that may be
 * cached says so itself). Added to the finished response, as cors.ts explains.
 */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("Referrer-Policy", "no-referrer");
    if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
  };
}
