import { type Auth, AuthError } from "@latchkey/domain";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { requestAudience } from "../request-context.ts";

const BEARER = /^bearer\s+(\S+)\s*$/i;

/** Admits requests whose bearer token resolves to a live user and session; sets `principal`. */
export function requireUser(auth: Auth): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = BEARER.exec(c.req.header("authorization") ?? "")?.[1];
    if (!token) throw new AuthError("no_authorization", "This endpoint requires a valid Bearer token");
    c.set("principal", await auth.authenticate({ accessToken: token, audience: requestAudience(c) }));
    await next();
  };
}
