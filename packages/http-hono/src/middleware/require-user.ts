import { type Auth, AuthError } from "@latchkey/domain";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { requestAudience } from "../request/envelope.ts";

const BEARER = /^bearer\s+(\S+)\s*$/i;

export function bearerToken(c: Context): string {
  const token = BEARER.exec(c.req.header("authorization") ?? "")?.[1];
  if (!token) throw new AuthError("no_authorization", "This endpoint requires a valid Bearer token");
  return token;
}

/**
 * Admits requests whose bearer token resolves to a live user and session; sets `principal`. With `checkAudience`
 * (GET and PUT /user, as GoTrue checks them) the token must be for the request's audience: X-JWT-AUD when sent,
 * else JWT_AUD.
 */
export function requireUser(auth: Auth, options: { checkAudience?: boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const audience = options.checkAudience ? (requestAudience(c) ?? auth.policy.defaultAudience) : undefined;
    c.set("principal", await auth.authenticate({ accessToken: bearerToken(c), audience }));
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
