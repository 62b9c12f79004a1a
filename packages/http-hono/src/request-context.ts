import { AuthError, type RequestContext } from "@latchkey/domain";
import type { Context } from "hono";

/** Finds the client's address; how depends on the deployment (socket, trusted proxy header). */
export type ClientAddress = (c: Context) => string | null;

export function requestContext(c: Context, clientAddress: ClientAddress): RequestContext {
  return { ip: clientAddress(c), userAgent: c.req.header("user-agent") ?? null };
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
  if (value.length > maxLength) throw new AuthError("validation_failed", `${name}: must be at most ${maxLength} characters`);
  return value;
}
