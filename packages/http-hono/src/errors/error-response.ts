import { AuthError, type ErrorCode } from "@latchkey/domain";
import type { Context, ErrorHandler } from "hono";
import type { ContentfulStatusCode, StatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../app-env.ts";
import { CLIENT_CLOSED_REQUEST_STATUS, ClientClosedRequest } from "../request/request-body.ts";
import { apiVersionHeader, wantsVersion2024 } from "./api-version.ts";
import { oauthShaped, statusOf } from "./error-status.ts";

const UNEXPECTED = "Unexpected failure, please check server logs for more information";

/** Any error as an AuthError; what is not one becomes an unexpected failure whose cause is kept for the log. */
function asAuthError(error: unknown): AuthError {
  return error instanceof AuthError ? error : new AuthError("unexpected_failure", UNEXPECTED, { cause: error });
}

/**
 * GoTrue's error responses: the legacy `{code, error_code, msg}` body, or `{code, message}` when the caller sends
 * X-Supabase-Api-Version >= 2024-01-01 (then echoed, as auth-js needs it to decode the body); the OAuth shape for
 * the few OAuth-style errors. 5xx bodies carry the request id, never the cause.
 */
export function errorResponse(c: Context<AppEnv>, error: AuthError, status: ContentfulStatusCode): Response {
  c.set("errorCode", error.code);
  if (error.retryAfterSeconds !== undefined) c.header("Retry-After", String(error.retryAfterSeconds));
  if (oauthShaped.has(error.code)) return c.json({ error: error.code, error_description: error.message }, status);

  // An error that is no AuthError already carries UNEXPECTED (asAuthError); one the code raised says what GoTrue says.
  const message = error.message;
  const errorId = status >= 500 ? { error_id: c.get("requestId") } : {};
  const reasons = error.details?.["reasons"];
  const weakPassword =
    error.code === "weak_password" ? { weak_password: { reasons: Array.isArray(reasons) ? reasons : [] } } : {};

  if (wantsVersion2024(c.req.header(apiVersionHeader.name))) {
    c.header(apiVersionHeader.name, apiVersionHeader.v2024);
    // compat: GoTrue writes its 2024 weak-password body without the code header.
    if (error.code !== "weak_password") c.header("x-sb-error-code", error.code);
    return c.json({ code: error.code, message, ...weakPassword, ...errorId }, status);
  }
  c.header("x-sb-error-code", error.code);
  return c.json({ code: status, error_code: error.code, msg: message, ...errorId, ...weakPassword }, status);
}

const OUTAGES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["service_unavailable", "request_timeout"]);

/** Why, in one line of words and no stack: an error's message and its causes', `a: b: c` (a few deep at most). */
export function reasonOf(cause: unknown): string {
  const words: string[] = [];
  for (let at = cause, depth = 0; at !== undefined && depth < 4; depth++) {
    const message = at instanceof Error ? at.message : String(at);
    if (!words.at(-1)?.endsWith(message)) words.push(message);
    at = at instanceof Error ? at.cause : undefined;
  }
  return words.join(": ");
}

/** Logs a failure answered with `status`, whether in a body or by redirect. */
function logFailure(c: Context<AppEnv>, error: AuthError, status: ContentfulStatusCode): void {
  // A database that is down or out of time is expected now and then, and the stack of its socket error says
  // nothing: one line with the reason.
  if (OUTAGES.has(error.code)) {
    c.get("log")?.warn(
      { code: error.code, reason: reasonOf(error.cause) },
      "request failed: a dependency could not serve it",
    );
  } else if (status >= 500) c.get("log")?.error({ err: error.cause ?? error }, "request failed");
  // The client gets a clean refusal; why a dependency refused (the SMS provider's code and words, already
  // stripped of codes and credentials by the adapter) is for the operator, in one line: a refusal is expected,
  // and its stack would say nothing.
  else if (error.cause !== undefined) {
    c.get("log")?.warn({ code: error.code, reason: reasonOf(error.cause) }, "request refused by a dependency");
  }
}

/** The app's one error handler: the status is that of the error at the endpoint that raised it. */
export function handleAuthErrors(): ErrorHandler<AppEnv> {
  return (thrown, c) => {
    // Nobody to answer: an empty 499 for the request log, neither a client error nor a failure.
    if (thrown instanceof ClientClosedRequest) return c.body(null, CLIENT_CLOSED_REQUEST_STATUS as StatusCode);
    const error = asAuthError(thrown);
    const status = statusOf(error, c.get("endpoint"));
    logFailure(c, error, status);
    return errorResponse(c, error, status);
  };
}

/**
 * The other exit of an error: told to a browser by redirect (GET /verify, /callback) rather than in a body. The
 * status is the one the body would have, for the redirect's parameters; the failure is logged as the error handler
 * logs it, and its code kept for the request log.
 */
export function redirectedFailure(
  c: Context<AppEnv>,
  thrown: unknown,
): { readonly error: AuthError; readonly status: ContentfulStatusCode } {
  const error = asAuthError(thrown);
  const status = statusOf(error, c.get("endpoint"));
  logFailure(c, error, status);
  c.set("errorCode", error.code);
  return { error, status };
}
