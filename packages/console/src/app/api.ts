import { endSession, session } from "./session.ts";

// Every request goes to the public API of the origin that served the console, with the admin's own token: the
// console has no privileged path, it can do only what the token may do through /admin and the public endpoints.

export interface Answer<T> {
  readonly status: number;
  readonly data: T;
  readonly headers: Headers;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface CallOptions {
  readonly body?: unknown;
  /** A token to use instead of the session's (checking one before it is kept). */
  readonly token?: string;
}

export async function call<T>(method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  const token = options.token ?? session.token();
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token) {
    headers["Authorization"] = `Bearer ${token}`;
    headers["apikey"] = token;
  }
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: "omit",
    cache: "no-store",
  });
  const data = parse(await response.text());
  if (!response.ok) {
    // The session's token refused: sign in again (a token being checked is the sign-in form's to judge).
    if ((response.status === 401 || response.status === 403) && options.token === undefined) endSession();
    throw new ApiError(response.status, messageOf(data, response.status));
  }
  return { status: response.status, data: data as T, headers: response.headers };
}

export const get = <T>(path: string) => call<T>("GET", path);

function parse(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** GoTrue's error bodies say it in `msg`, `message` or `error_description`. */
function messageOf(data: unknown, status: number): string {
  if (data && typeof data === "object") {
    const body = data as Record<string, unknown>;
    const text = body["msg"] ?? body["message"] ?? body["error_description"] ?? body["error"];
    if (typeof text === "string") return text;
  }
  return `The server answered ${status}`;
}

/** A query string of the parameters that have a value. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== "") search.set(name, `${value}`);
  const text = search.toString();
  return text ? `?${text}` : "";
}

export const totalOf = (answer: Answer<unknown>): number | undefined => {
  const total = answer.headers.get("X-Total-Count");
  return total === null ? undefined : Number(total);
};
