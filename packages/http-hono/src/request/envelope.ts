import { AuthError, isUuid, type LinkRequest, type RequestContext } from "@latchkey/domain";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";

// What a handler hands a use case besides the body: who calls, for whom the token is, where links lead.

/** Finds the client's address; how depends on the deployment (socket, trusted proxy header). */
export type ClientAddress = (c: Context) => string | null;

/** Sets `caller` once per request: the client's address and user agent, for the audit log, sessions and limits. */
export function identifyCaller(clientAddress: ClientAddress): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("caller", { ip: clientAddress(c), userAgent: c.req.header("user-agent") ?? null } satisfies RequestContext);
    await next();
  };
}

/** X-JWT-AUD, when the caller names an audience. */
export function requestAudience(c: Context): string | undefined {
  return c.req.header("x-jwt-aud") || undefined;
}

/**
 * Where the caller asks to be sent, in GoTrue's order of preference: a `redirect_to` header, the query, then the
 * Referer. The domain keeps the first one its redirect rule allows.
 */
export function redirectCandidates(c: Context): (string | undefined)[] {
  return [c.req.header("redirect_to"), c.req.query("redirect_to"), c.req.header("referer")];
}

/** The PKCE fields of a body that asks for a mail with a link. */
export interface PkceFields {
  readonly code_challenge?: string | undefined;
  readonly code_challenge_method?: string | undefined;
}

/** How the link of the mail a request asks for should be made: where it leads, and for which PKCE client. */
export function linkRequest(c: Context, body: PkceFields): LinkRequest {
  return {
    redirectTo: redirectCandidates(c),
    codeChallenge: body.code_challenge,
    codeChallengeMethod: body.code_challenge_method,
  };
}

/**
 * A query parameter that may reach storage or a parser: refused with a clean 400 when PostgreSQL could not store it
 * (NUL, unpaired surrogates) or when it is longer than any real value of it.
 */
export function queryText(c: Context, name: string, maxLength = 1024): string | undefined {
  const value = c.req.query(name);
  if (value === undefined) return undefined;
  if (!value.isWellFormed() || value.includes("\u0000")) {
    throw new AuthError("validation_failed", `${name}: must not contain NUL characters or unpaired surrogates`);
  }
  if (value.length > maxLength)
    throw new AuthError("validation_failed", `${name}: must be at most ${maxLength} characters`);
  return value;
}

/** The id a path names (`user_id`, `factor_id`). compat: GoTrue answers one that is no UUID with 404 validation_failed. */
export function pathId(c: Context, name: string): string {
  const id = c.req.param(name) ?? "";
  if (!isUuid(id)) throw new AuthError("validation_failed", `${name} must be an UUID`, { case: "malformed_id" });
  return id;
}
