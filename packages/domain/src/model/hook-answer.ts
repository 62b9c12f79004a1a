import { AuthError } from "../errors.ts";
import type { HookAnswer } from "../ports/hooks.ts";

/** GoTrue's status for a hook error that names none, or one that is no error status. */
const DEFAULT_HOOK_STATUS = 500;

/**
 * The hook's own error, as the client hears it: the status it chose (500 when it chose none, or one that is no error
 * status) and its message. GoTrue has no code for it: `unexpected_failure` with 500, else `unknown`.
 */
export function hookError(httpCode: unknown, message: string): AuthError {
  const chosen = typeof httpCode === "number" && Number.isInteger(httpCode) ? httpCode : 0;
  const status = chosen >= 400 && chosen <= 599 ? chosen : DEFAULT_HOOK_STATUS;
  return new AuthError(status === 500 ? "unexpected_failure" : "unknown", message, { hookStatus: status });
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Reads a hook's answer as GoTrue does (its hookserrors.Check): null or nothing is no answer; an object whose `error`
 * carries a non-empty `message` is the hook's error, thrown; any other object is the answer. Anything that is no
 * JSON object fails the request, as GoTrue's decoding into its output type does.
 */
export function readHookAnswer(body: unknown): HookAnswer {
  if (body === null || body === undefined) return null;
  if (!isObject(body)) throw new AuthError("unexpected_failure", "Error unmarshaling JSON output.");
  const { error } = body;
  if (isObject(error) && typeof error["message"] === "string" && error["message"] !== "") {
    throw hookError(error["http_code"], error["message"]);
  }
  return body;
}
