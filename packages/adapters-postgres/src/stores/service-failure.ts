import { AuthError, messages } from "@latchkey/domain";
import { DeadlinePassed } from "../drivers/time-budget.ts";

/** How long a client is told to wait before retrying while the database cannot serve. */
const RETRY_AFTER_SECONDS = 5;

// SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html) that say the work ran out of time: the
// server cancelled the statement (statement_timeout, or an operator's pg_cancel_backend) or gave up on a lock.
const TIMED_OUT = new Set(["57014", "55P03"]);
// That say the database cannot serve now: it is shutting down or starting up, it is a standby or a primary being
// demoted in a failover, or it is out of connections, memory or disk. Class 08 (connection exceptions) too.
const UNAVAILABLE = new Set(["57P01", "57P02", "57P03", "25006", "53000", "53100", "53200", "53300", "53400"]);
// Node's socket errors: the server cannot be reached, or the connection broke.
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
// node-postgres and pg-pool say some of it in words only.
const TIMED_OUT_WORDS = [
  /^timeout exceeded when trying to connect$/,
  /^Connection terminated due to connection timeout/,
];
const UNAVAILABLE_WORDS = [
  /^Connection terminated/,
  /is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
];

type Kind = "timed_out" | "unavailable" | undefined;

function kindOfOne(error: unknown): Kind {
  if (error instanceof DeadlinePassed) return "timed_out";
  if (typeof error !== "object" || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string") {
    if (TIMED_OUT.has(code)) return "timed_out";
    if (UNAVAILABLE.has(code) || code.startsWith("08") || UNREACHABLE.has(code)) return "unavailable";
  }
  if (typeof message === "string") {
    if (TIMED_OUT_WORDS.some((words) => words.test(message))) return "timed_out";
    if (UNAVAILABLE_WORDS.some((words) => words.test(message))) return "unavailable";
  }
  return undefined;
}

/** The first kind found along the error and its causes (drizzle's wrapper holds pg's error). */
function kindOf(error: unknown): Kind {
  let link = error;
  for (let depth = 0; depth < 4 && link !== undefined && link !== null; depth++) {
    const kind = kindOfOne(link);
    if (kind) return kind;
    link = (link as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A failure of the database itself as what it means to the client: `request_timeout` when the work ran out of time
 * (the server cancelled the statement and its transaction rolled back, or no connection came in time), or
 * `service_unavailable` with a Retry-After when the database cannot serve now. Anything else, an AuthError
 * included, is returned as it is. The failure stays the cause, for the log.
 */
export function asServiceFailure(error: unknown): unknown {
  if (error instanceof AuthError) return error;
  switch (kindOf(error)) {
    case "timed_out":
      return new AuthError("request_timeout", messages.requestTimeout, { cause: error });
    case "unavailable":
      return new AuthError("service_unavailable", messages.serviceUnavailable, {
        cause: error,
        retryAfterSeconds: RETRY_AFTER_SECONDS,
      });
    default:
      return error;
  }
}
