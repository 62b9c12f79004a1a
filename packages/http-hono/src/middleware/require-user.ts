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
 * Admits requests whose bearer token resolves to a live user and session, for the request's audience (X-JWT-AUD
 * when sent, else JWT_AUD); sets `principal`. security: every route a user's token opens checks the audience,
 * where GoTrue checks it on GET and PUT /user only, so a token made for another audience ends no session
 * (docs/compatibility.md, "Tokens and sessions"). A third-party client's token only where `thirdParty` says so.
 */
export function requireUser(auth: Auth, options: { thirdParty?: boolean } = {}): MiddlewareHandler<AppEnv> {
  const thirdParty = options.thirdParty ?? false;
  return async (c, next) => {
    const audience = requestAudience(c) ?? auth.policy.defaultAudience;
    c.set("principal", await c.var.auth.authenticate({ accessToken: bearerToken(c), audience, thirdParty }));
    await next();
  };
}

/** Admits requests whose bearer token carries an admin role (JWT_ADMIN_ROLES); sets `admin`. */
export function requireAdmin(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("admin", await c.var.auth.authorizeAdmin({ accessToken: bearerToken(c) }));
    await next();
  };
}
