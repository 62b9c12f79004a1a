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
  let response = await send(method, path, options);
  // An account's access token expired: refreshed once, then the call again with the new one.
  if (refused(response) && options.token === undefined && (await refreshed())) {
    response = await send(method, path, options);
  }
  const data = parse(await response.text());
  if (!response.ok) {
    // The session's token refused: sign in again (a token being checked is the sign-in form's to judge).
    if (refused(response) && options.token === undefined) endSession();
    throw new ApiError(response.status, messageOf(data, response.status));
  }
  return { status: response.status, data: data as T, headers: response.headers };
}

const refused = (response: Response) => response.status === 401 || response.status === 403;

function send(method: string, path: string, options: CallOptions): Promise<Response> {
  const token = options.token ?? session.token();
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token) {
    headers["Authorization"] = `Bearer ${token}`;
    headers["apikey"] = token;
  }
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: "omit",
    cache: "no-store",
  });
}

/** The refresh under way: calls refused at the same moment (a page's several reads) share it. */
let refreshing: Promise<boolean> | undefined;

/** Whether the session's refresh token (an account's sign-in has one) gave a new access token, now kept. */
function refreshed(): Promise<boolean> {
  refreshing ??= refresh().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

async function refresh(): Promise<boolean> {
  const refreshToken = session.refreshToken();
  if (refreshToken === null) return false;
  const response = await send("POST", "/token?grant_type=refresh_token", {
    body: { refresh_token: refreshToken },
    token: "",
  });
  if (!response.ok) return false;
  const tokens = (await response.json()) as { access_token: string; refresh_token: string };
  session.save(tokens.access_token, tokens.refresh_token);
  return true;
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
