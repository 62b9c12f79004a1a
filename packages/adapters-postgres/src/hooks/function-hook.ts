import { AuthError, type HookCaller, type HookFunctionOutcome, hookError, readHookAnswer } from "@latchkey/domain";

/** GoTrue's limit for a hook function: its statement_timeout. */
const DEFAULT_TIMEOUT_MS = 2_000;

/** PostgreSQL's rule for a name (GoTrue checks schema and function names with it). */
const POSTGRES_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,62}$/;

/** The function a `pg-functions://postgres/<schema>/<function>` URI names, or why it names none. */
export function parseFunctionHookUri(uri: string): { schema: string; name: string } | { problem: string } {
  // The URL parser drops tabs and newlines anywhere, and spaces and control characters at either end, in silence:
  // `public/ho<TAB>ok` would name `hook`. GoTrue (Go's url.Parse, then the name rule) refuses them all.
  if (/[\s\p{Cc}]/u.test(uri)) return { problem: "has whitespace or control characters" };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { problem: "is not a URI" };
  }
  if (url.protocol !== "pg-functions:") return { problem: "is not a pg-functions:// URI" };
  const [, schema, name] = url.pathname.split("/");
  if (schema === undefined || name === undefined || name === "") {
    return { problem: "must be pg-functions://postgres/<schema>/<function>" };
  }
  if (!POSTGRES_NAME.test(schema)) return { problem: `has an invalid schema name: ${schema}` };
  if (!POSTGRES_NAME.test(name)) return { problem: `has an invalid function name: ${name}` };
  return { schema, name };
}

export interface FunctionHookOptions {
  /** pg-functions://postgres/<schema>/<function>, checked at start (parseFunctionHookUri). */
  readonly uri: string;
  /** The function's statement_timeout; GoTrue's 2 s unless a test needs less. */
  readonly timeoutMs?: number;
}

/**
 * A hook that is a function in the database: called with the payload as its jsonb argument, on the stores it is
 * given (a transaction's, or a transaction of its own), its result read as an HTTP hook's answer is.
 */
export function createFunctionHook({ uri, timeoutMs = DEFAULT_TIMEOUT_MS }: FunctionHookOptions): HookCaller {
  const target = parseFunctionHookUri(uri);
  if ("problem" in target) throw new Error(`hook URI ${uri} ${target.problem}`);
  return {
    uri,
    async call(payload, stores) {
      const outcome = await stores.hookFunctions.call({ ...target, payload: JSON.stringify(payload), timeoutMs });
      if (!outcome.ok) throw failureOf(uri, outcome);
      return readHookAnswer(outcome.answer);
    },
  };
}

/**
 * GoTrue's answer to a function that failed: what it raised (RAISE, a violated constraint) with its message and 500,
 * or with the status a `PTxxx` SQLSTATE names, as PostgREST does; anything else (its timeout, a missing function)
 * as a failure to run the hook, in words that tell nothing of the database.
 */
function failureOf(uri: string, failure: HookFunctionOutcome & { ok: false }): AuthError {
  const { code, message } = failure;
  const custom = /^PT(\d{3})$/.exec(code);
  if (custom) return hookError(Number(custom[1]), message);
  if (code === "P0001" || code.startsWith("23")) return hookError(500, message);
  return new AuthError("unexpected_failure", `Error running hook URI: ${uri}`, { cause: message });
}
