import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { AuthError, type HookAnswer, type HookCaller, type HookPayload, readHookAnswer } from "@latchkey/domain";
import type { Webhook } from "standardwebhooks";
import { checkHttpHookSettings, type HttpHookSettings, signerOf } from "./http-hook-settings.ts";
import { parseMediaType } from "./media-type.ts";
import { type HookResponse, nodeTransport, type Transport } from "./transport.ts";

export interface HttpHookOptions extends HttpHookSettings {
  /** For the whole call, every attempt and the backoff between them: GoTrue's 5 s. */
  readonly timeoutMs?: number;
  /** GoTrue's 3. */
  readonly attempts?: number;
  /** The wait before trying again a hook that could not be reached: GoTrue's 2 s. */
  readonly backoffMs?: number;
  /** The largest answer read: GoTrue's 200 KiB. */
  readonly maxResponseBytes?: number;
  /** How a POST is made: node:http(s) (transport.ts), unless a test makes them otherwise. */
  readonly transport?: Transport;
}

interface Call {
  readonly uri: string;
  readonly signers: readonly Webhook[];
  readonly timeoutMs: number;
  readonly attempts: number;
  readonly backoffMs: number;
  readonly maxResponseBytes: number;
  readonly transport: Transport;
  /** The payload, as sent and signed. */
  readonly body: string;
  /** Aborts when the call's time is up. */
  readonly deadline: AbortSignal;
  /** The delivered message's id, the webhook-id of every attempt; absent, each attempt has one of its own. */
  readonly messageId: string | undefined;
}

/** What an attempt came to: the answer, or another attempt (at once, or after the backoff). */
type Outcome = { readonly answer: HookAnswer } | "again" | "after-backoff";

const UNAVAILABLE = "Service currently unavailable due to hook";
const UNEXPECTED = "Unexpected failure, please check server logs for more information";

/** GoTrue's words for no answer in time; %f of the seconds, as Go prints them. */
const timedOut = (call: Call) =>
  new AuthError(
    "hook_timeout",
    `Failed to reach hook within maximum time of ${(call.timeoutMs / 1000).toFixed(6)} seconds`,
  );

/**
 * A hook that is an HTTP endpoint, called as GoTrue's hookshttp calls it: the payload POSTed as JSON, signed with
 * Standard Webhooks by every secret (webhook-id, webhook-timestamp, webhook-signature); a hook that cannot be reached
 * tried again after the backoff, one that answers 429 or 503 with a Retry-After at once, all within the timeout; the
 * answer read up to the size limit and as GoTrue reads it (readHookAnswer). Throws at once on settings that
 * checkHttpHookSettings refuses.
 */
export function createHttpHook(options: HttpHookOptions): HookCaller {
  const problem = checkHttpHookSettings(options);
  if (problem !== null) {
    throw new Error(
      `HTTP hook ${options.uri}, its ${problem.setting === "uri" ? "URI" : "secrets"}: ${problem.problem}`,
    );
  }
  const signers = options.secrets.map(signerOf);
  const settings = {
    uri: options.uri,
    signers,
    timeoutMs: options.timeoutMs ?? 5_000,
    attempts: options.attempts ?? 3,
    backoffMs: options.backoffMs ?? 2_000,
    maxResponseBytes: options.maxResponseBytes ?? 200 * 1024,
    transport: options.transport ?? nodeTransport,
  };
  return {
    uri: options.uri,
    async call(payload, _stores, options = {}) {
      const body = serialized(payload);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), settings.timeoutMs);
      const call: Call = { ...settings, body, deadline: controller.signal, messageId: options.messageId };
      try {
        return await attempts(call);
      } catch (error) {
        if (error instanceof AuthError) throw error;
        throw call.deadline.aborted
          ? timedOut(call)
          : new AuthError("unexpected_failure", UNEXPECTED, { cause: error });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function serialized(payload: HookPayload): string {
  try {
    return JSON.stringify(payload);
  } catch (error) {
    throw new AuthError("unexpected_failure", "Error marshaling JSON input.", { cause: error });
  }
}

async function attempts(call: Call): Promise<HookAnswer> {
  for (let attempt = 1; attempt <= call.attempts; attempt++) {
    const outcome = await attemptOnce(call, attempt === call.attempts);
    if (outcome === "after-backoff") {
      await sleep(call.backoffMs, undefined, { signal: call.deadline }).catch(() => {
        throw timedOut(call);
      });
    } else if (outcome !== "again") {
      return outcome.answer;
    }
  }
  // Every attempt answered 429 or 503 with a Retry-After.
  throw new AuthError("unexpected_failure", UNAVAILABLE);
}

async function attemptOnce(call: Call, last: boolean): Promise<Outcome> {
  let response: HookResponse;
  try {
    // security: a redirect is not followed (GoTrue's Go client would): the signed payload, tokens and all, goes to
    // the URI the operator configured and nowhere else; it is an unexpected status (docs/compatibility.md, Hooks).
    response = await call.transport(call.uri, { headers: signedHeaders(call), body: call.body, signal: call.deadline });
  } catch {
    if (call.deadline.aborted) throw timedOut(call);
    if (last) throw new AuthError("hook_timeout_after_retry", "Failed to reach hook after maximum retries");
    return "after-backoff";
  }
  if (response.status === 200 || response.status === 202) return { answer: await readAnswer(call, response) };
  response.discard();
  switch (response.status) {
    case 204:
      return { answer: null };
    case 429:
    case 503:
      if (response.header("retry-after")) return "again";
      throw new AuthError("unexpected_failure", UNAVAILABLE);
    case 400:
      throw new AuthError("unexpected_failure", "Invalid payload sent to hook");
    case 401:
      throw new AuthError("unexpected_failure", "Hook requires authorization token");
    default:
      throw new AuthError("unexpected_failure", `Unexpected status code returned from hook: ${response.status}`);
  }
}

/**
 * Each attempt signed anew: its time, and one signature per secret; its id the delivered message's (the outbox's,
 * the same on every attempt, as Standard Webhooks has it, so a receiver can drop a duplicate), else a new one each
 * attempt, as GoTrue sends.
 */
function signedHeaders(call: Call): Record<string, string> {
  const id = call.messageId ?? randomUUID();
  const now = new Date();
  return {
    "Content-Type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": call.signers.map((signer) => signer.sign(id, now, call.body)).join(", "),
    // As GoTrue asks, so that the answer's size is what crosses the wire.
    "Accept-Encoding": "identity",
  };
}

/** An answer of 200 or 202: JSON by its Content-Type, within the size limit, read as GoTrue reads it. */
async function readAnswer(call: Call, response: HookResponse): Promise<HookAnswer> {
  const contentType = response.header("content-type");
  const problem = contentTypeProblem(contentType);
  if (problem !== null) {
    response.discard();
    throw new AuthError("hook_payload_invalid_content_type", problem);
  }
  const text = await response.read(call.maxResponseBytes);
  if (text === null) {
    throw new AuthError(
      "hook_payload_over_size_limit",
      `Payload size exceeded size limit of ${call.maxResponseBytes} bytes`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AuthError("unexpected_failure", "Error unmarshaling JSON output.");
  }
  return readHookAnswer(body);
}

function contentTypeProblem(contentType: string | null): string | null {
  if (!contentType) return "Invalid Content-Type: Missing Content-Type header";
  const parsed = parseMediaType(contentType);
  if ("problem" in parsed) return `Invalid Content-Type header: ${parsed.problem}`;
  if (parsed.mediaType !== "application/json") return `Invalid JSON response. Received content-type: ${contentType}`;
  return null;
}
