import { type Agent, request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { SignJWT } from "jose";
import { expect } from "vitest";
import { JWT_SECRET } from "./server.ts";

export const PASSWORD = "correct horse battery staple";

/** What one request got: an HTTP answer, or the network error in its place. */
export interface Outcome {
  readonly what: string;
  /** Date.now() when it was sent. */
  readonly startedAt: number;
  readonly ms: number;
  /** null when no HTTP answer came. */
  readonly status: number | null;
  /** GoTrue's `error_code` (or the 2024 shape's `code`), when the answer is an error. */
  readonly errorCode?: string;
  readonly retryAfter?: string | null;
  /** ECONNRESET, ECONNREFUSED, UND_ERR_SOCKET, TimeoutError, ...: why no answer came. */
  readonly networkError?: string;
  /** The answer's `Connection` header (`post` records it). */
  readonly connection?: string | null;
  readonly body?: any;
}

/** The code of a failed fetch's cause, as far down as it goes (undici wraps the socket's error). */
function networkErrorOf(error: unknown): string {
  let current: any = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current.name === "TimeoutError" || current.name === "AbortError") return current.name;
    if (typeof current.code === "string") return current.code;
    current = current.cause;
  }
  return error instanceof Error ? error.message : String(error);
}

/** One JSON request with a deadline; never throws: a failure is an outcome too. */
export async function call(
  baseUrl: string,
  path: string,
  init: {
    readonly what?: string;
    readonly method?: string;
    readonly json?: unknown;
    readonly headers?: Record<string, string>;
    readonly timeoutMs?: number;
  } = {},
): Promise<Outcome> {
  const what = init.what ?? `${init.method ?? "GET"} ${path}`;
  const startedAt = Date.now();
  try {
    const response = await fetch(`${baseUrl}${path}`, {
      method: init.method ?? "GET",
      headers: { "content-type": "application/json", ...init.headers },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
    });
    const text = await response.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: kept as text.
    }
    const errorCode = response.ok ? undefined : (body?.error_code ?? body?.code ?? body?.error);
    return {
      what,
      startedAt,
      ms: Date.now() - startedAt,
      status: response.status,
      ...(errorCode === undefined ? {} : { errorCode: String(errorCode) }),
      retryAfter: response.headers.get("retry-after"),
      body,
    };
  } catch (error) {
    return { what, startedAt, ms: Date.now() - startedAt, status: null, networkError: networkErrorOf(error) };
  }
}

/**
 * A JSON POST on a connection of its own, closed after the answer (`Connection: close`), unlike fetch's pooled
 * keep-alive connections: when the server stops, no idle connection of the client's is left for it to close.
 */
export function postOnOwnConnection(message: JsonPost) {
  return post({ ...message, agent: false, timeoutMs: message.timeoutMs ?? 30_000 });
}

/** One JSON POST of `post`'s or `postOnOwnConnection`'s. */
export interface JsonPost {
  readonly baseUrl: string;
  readonly path: string;
  readonly json: unknown;
  /** The outcome's `what`. */
  readonly what: string;
  /** 30 s unless given. */
  readonly timeoutMs?: number;
}

/**
 * A JSON POST through node:http: on a connection of its own (`agent: false`) or one of `agent`'s (an `Agent` with
 * `keepAlive` reuses its connections), recording the answer's `Connection` header.
 */
export function post({ baseUrl, path, json, what, ...options }: JsonPost & { readonly agent: Agent | false }) {
  const startedAt = Date.now();
  const body = JSON.stringify(json);
  return new Promise<Outcome>((resolve) => {
    const failed = (error: unknown) =>
      resolve({ what, startedAt, ms: Date.now() - startedAt, status: null, networkError: networkErrorOf(error) });
    const req = request(
      `${baseUrl}${path}`,
      {
        method: "POST",
        agent: options.agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("error", failed);
        res.on("end", () => {
          let parsed: any = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // Not JSON: kept as text.
          }
          const status = res.statusCode ?? 0;
          const errorCode = status < 400 ? undefined : (parsed?.error_code ?? parsed?.code ?? parsed?.error);
          resolve({
            what,
            startedAt,
            ms: Date.now() - startedAt,
            status,
            ...(errorCode === undefined ? {} : { errorCode: String(errorCode) }),
            retryAfter: (res.headers["retry-after"] as string | undefined) ?? null,
            connection: res.headers.connection ?? null,
            body: parsed,
          });
        });
      },
    );
    req.on("error", failed);
    req.end(body);
  });
}

export const signUp = (url: string, email: string, timeoutMs?: number) =>
  call(url, "/signup", {
    what: `signup ${email}`,
    method: "POST",
    json: { email, password: PASSWORD },
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });

export const signIn = (url: string, email: string, timeoutMs?: number) =>
  call(url, "/token?grant_type=password", {
    what: `sign-in ${email}`,
    method: "POST",
    json: { email, password: PASSWORD },
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });

export const refresh = (url: string, refreshToken: string, timeoutMs?: number) =>
  call(url, "/token?grant_type=refresh_token", {
    what: "refresh",
    method: "POST",
    json: { refresh_token: refreshToken },
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });

/** A Supabase-style service_role key: an HS256 JWT with only a role, signed with JWT_SECRET. */
function serviceRoleKey(): Promise<string> {
  return new SignJWT({ role: "service_role" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(JWT_SECRET));
}

/** A confirmed user made through the admin API, ready to sign in with PASSWORD. */
export async function createConfirmedUser(url: string, email: string): Promise<void> {
  const key = await serviceRoleKey();
  const outcome = await call(url, "/admin/users", {
    what: `admin create ${email}`,
    method: "POST",
    headers: { authorization: `Bearer ${key}`, apikey: key },
    json: { email, password: PASSWORD, email_confirm: true },
  });
  if (outcome.status !== 200) throw new Error(`creating ${email}: ${describe(outcome)}`);
}

/** A session's refresh token: a password sign-in of a confirmed user. */
export async function sessionOf(url: string, email: string): Promise<string> {
  const outcome = await signIn(url, email);
  if (outcome.status !== 200) throw new Error(`signing in ${email}: ${describe(outcome)}`);
  return outcome.body.refresh_token as string;
}

/** One outcome in a line. */
export function describe(outcome: Outcome): string {
  const answer =
    outcome.status === null
      ? `no answer (${outcome.networkError})`
      : `${outcome.status}${outcome.errorCode ? ` ${outcome.errorCode}` : ""}${
          outcome.retryAfter ? ` Retry-After ${outcome.retryAfter}` : ""
        }`;
  return `${outcome.what}: ${answer} in ${outcome.ms} ms`;
}

/** The key an outcome is counted under: its status and code, or its network error. */
export function kindOf(outcome: Outcome): string {
  if (outcome.status === null) return `no answer (${outcome.networkError})`;
  return outcome.errorCode ? `${outcome.status} ${outcome.errorCode}` : String(outcome.status);
}

/** "200 ×41, 503 service_unavailable ×12": what came back, for assertion messages. */
export function tally(outcomes: readonly Outcome[]): string {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) counts.set(kindOf(outcome), (counts.get(kindOf(outcome)) ?? 0) + 1);
  return [...counts].map(([kind, count]) => `${kind} ×${count}`).join(", ") || "nothing";
}

/** Percentile of a list of numbers (nearest rank); 0 for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** "p50 12 ms, p95 40 ms, max 61 ms" of the outcomes' durations. */
export function latencies(outcomes: readonly Outcome[]): string {
  const ms = outcomes.map((outcome) => outcome.ms);
  return `p50 ${percentile(ms, 50)} ms, p95 ${percentile(ms, 95)} ms, max ${percentile(ms, 100)} ms`;
}

/**
 * `workers` loops, each sending one request at a time (`task(worker, n)`) and pausing `pauseMs` between them, until
 * `keepGoing()` turns false or `maxRequests` were sent in all. Resolves with every outcome once the last request
 * sent has its answer.
 */
export async function runLoad(options: {
  readonly workers: number;
  readonly task: (worker: number, n: number) => Promise<Outcome>;
  readonly keepGoing: () => boolean;
  readonly maxRequests: number;
  readonly pauseMs?: number;
}): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let sent = 0;
  const worker = async (index: number) => {
    while (options.keepGoing() && sent < options.maxRequests) {
      const n = sent++;
      outcomes.push(await options.task(index, n));
      if (options.pauseMs) await sleep(options.pauseMs);
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_, index) => worker(index)));
  return outcomes;
}

/** A load running in the background: `stop()` ends it and resolves with every outcome. */
export function startLoad(options: Omit<Parameters<typeof runLoad>[0], "keepGoing">): {
  readonly outcomes: () => readonly Outcome[];
  /** Requests sent and not answered yet. */
  readonly inFlight: () => number;
  stop(): Promise<Outcome[]>;
} {
  let going = true;
  let inFlight = 0;
  const live: Outcome[] = [];
  const done = runLoad({
    ...options,
    task: async (worker, n) => {
      inFlight++;
      const outcome = await options.task(worker, n).finally(() => inFlight--);
      live.push(outcome);
      return outcome;
    },
    keepGoing: () => going,
  });
  return {
    outcomes: () => live,
    inFlight: () => inFlight,
    stop: () => {
      going = false;
      return done;
    },
  };
}

/**
 * A soft assertion that none of `outcomes` happened: on failure, what they were (a tally), the first few, and the
 * check's report.
 */
export function expectNone(outcomes: readonly Outcome[], what: string, report = ""): void {
  const shown = outcomes.slice(0, 8).map((outcome) => `  - ${describe(outcome)}${bodyOf(outcome)}`);
  if (outcomes.length > shown.length) shown.push(`  ... and ${outcomes.length - shown.length} more`);
  const detail = outcomes.length === 0 ? "" : `${tally(outcomes)}\n${shown.join("\n")}`;
  expect.soft(detail, `${what}${report ? `\n${report}` : ""}`).toBe("");
}

function bodyOf(outcome: Outcome): string {
  if (outcome.body === undefined || outcome.status === 200) return "";
  const text = typeof outcome.body === "string" ? outcome.body : JSON.stringify(outcome.body);
  return ` ${text.slice(0, 200)}`;
}
