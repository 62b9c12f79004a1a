import { type Auth, AuthError, type ErrorCode } from "@latchkey/domain";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { errorResponse } from "../errors/error-response.ts";
import { requestAudience } from "../request-context.ts";

const BEARER = /^bearer\s+(\S+)\s*$/i;

function bearerToken(c: Context): string {
  const token = BEARER.exec(c.req.header("authorization") ?? "")?.[1];
  if (!token) throw new AuthError("no_authorization", "This endpoint requires a valid Bearer token");
  return token;
}

/**
 * compat: a token whose user or session is gone, or whose session has ended, is a 403 wherever a token is checked
 * (GoTrue's auth middleware; docs/compatibility.md, Errors), whatever the same codes mean to the route behind it (a 404 for the user an admin
 * route names).
 */
const credentialRefusals: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["user_not_found", "session_not_found", "session_expired"]);

async function admitting<T>(c: Context<AppEnv>, check: () => Promise<T>): Promise<T | Response> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof AuthError && credentialRefusals.has(error.code)) return errorResponse(c, error, 403);
    throw error;
  }
}

/**
 * Admits requests whose bearer token resolves to a live user and session; sets `principal`. With `checkAudience`
 * (GET and PUT /user, as GoTrue checks them) the token must be for the request's audience: X-JWT-AUD when sent,
 * else JWT_AUD.
 */
export function requireUser(auth: Auth, options: { checkAudience?: boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const audience = options.checkAudience ? (requestAudience(c) ?? auth.policy.defaultAudience) : undefined;
    const principal = await admitting(c, () => auth.authenticate({ accessToken: bearerToken(c), audience }));
    if (principal instanceof Response) return principal;
    c.set("principal", principal);
    await next();
  };
}

/** Admits requests whose bearer token carries an admin role (JWT_ADMIN_ROLES); sets `admin`. */
export function requireAdmin(auth: Auth): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const admin = await admitting(c, () => auth.authorizeAdmin({ accessToken: bearerToken(c) }));
    if (admin instanceof Response) return admin;
    c.set("admin", admin);
    await next();
  };
}
