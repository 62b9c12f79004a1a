import { type Auth, AuthError } from "@latchkey/domain";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { requestAudience } from "../request-context.ts";

const BEARER = /^bearer\s+(\S+)\s*$/i;

function bearerToken(c: Context): string {
  const token = BEARER.exec(c.req.header("authorization") ?? "")?.[1];
  if (!token) throw new AuthError("no_authorization", "This endpoint requires a valid Bearer token");
  return token;
}

/** Admits requests whose bearer token resolves to a live user and session; sets `principal`. */
export function requireUser(auth: Auth): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("principal", await auth.authenticate({ accessToken: bearerToken(c), audience: requestAudience(c) }));
    await next();
  };
}

/** Admits requests whose bearer token carries an admin role (JWT_ADMIN_ROLES); sets `admin`. */
export function requireAdmin(auth: Auth): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("admin", await auth.authorizeAdmin({ accessToken: bearerToken(c) }));
    await next();
  };
}
