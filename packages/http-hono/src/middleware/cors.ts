import type { MiddlewareHandler } from "hono";
import type { DefaultHeaders } from "../response/default-headers.ts";

export interface CorsOptions {
  readonly allowMethods: readonly string[];
  readonly allowHeaders: readonly string[];
  readonly exposeHeaders: readonly string[];
  readonly maxAgeSeconds: number;
}

/**
 * Lets browser apps on any origin call the server, as GoTrue does: the request's Origin is echoed. Unlike GoTrue,
 * never with `Access-Control-Allow-Credentials`: the API reads no cookies, so no page needs its visitors'
 * credentials sent along, and none is allowed to (docs/compatibility.md, Serving the API).
 * Headers are added to the finished response rather than before the route runs (as hono/cors does): a header set
 * before the route makes Hono merge two responses, and on @hono/node-server that turns each light response into
 * a full web Response, which costs more than most routes' own work. No route sets these headers itself.
 */
export function cors(options: CorsOptions, addDefaults: DefaultHeaders): MiddlewareHandler {
  const allowMethods = options.allowMethods.join(",");
  const allowHeaders = options.allowHeaders.join(",");
  const exposeHeaders = options.exposeHeaders.join(",");
  const maxAge = String(options.maxAgeSeconds);
  // The answer differs by Origin, so caches must keep one per Origin, whether or not this request sent one.
  const withoutOrigin: Readonly<Record<string, string>> = { Vary: "Origin" };
  return async (c, next) => {
    const origin = c.req.header("origin");
    // Every OPTIONS is a preflight: no route answers OPTIONS.
    if (c.req.method === "OPTIONS") {
      return c.body(null, 204, {
        ...(origin === undefined ? {} : { "Access-Control-Allow-Origin": origin }),
        "Access-Control-Allow-Methods": allowMethods,
        "Access-Control-Allow-Headers": allowHeaders,
        "Access-Control-Max-Age": maxAge,
        Vary: "Origin, Access-Control-Request-Headers",
      });
    }
    await next();
    addDefaults(
      c,
      origin === undefined
        ? withoutOrigin
        : { Vary: "Origin", "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": exposeHeaders },
    );
  };
}
