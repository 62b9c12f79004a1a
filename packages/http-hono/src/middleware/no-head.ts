import type { MiddlewareHandler } from "hono";

/**
 * For a route that changes state on GET (following a link uses its token up; /reauthenticate mails a nonce). Hono
 * answers HEAD with the GET route, and mail scanners and link previewers send HEAD: such a request must not run
 * it, nor count against anything. It gets what GoTrue's router answers a method it does not route: 405, no body.
 */
export function noHead(allow: string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === "HEAD") return c.body(null, 405, { Allow: allow });
    await next();
  };
}
