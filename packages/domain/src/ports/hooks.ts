import type { Stores } from "./stores.ts";

/**
 * GoTrue's hooks, by the name of their settings (HOOK_<NAME>_ENABLED, _URI, _SECRETS): the operator's own code,
 * called at fixed points of the flows (docs/compatibility.md, Hooks).
 */
export const HOOK_NAMES = [
  "custom_access_token",
  "send_email",
  "send_sms",
  "mfa_verification_attempt",
  "password_verification_attempt",
  "before_user_created",
  "after_user_created",
] as const;
export type HookName = (typeof HOOK_NAMES)[number];

/** A hook's answer: a JSON object, or null when it answered nothing (HTTP 204, a function returning NULL). */
export type HookAnswer = Readonly<Record<string, unknown>> | null;

/** What a hook is sent: a JSON object, built by the domain (services/hooks). */
export type HookPayload = Readonly<Record<string, unknown>>;

/**
 * Calls one hook: an HTTP endpoint (signed with Standard Webhooks) or a function in the database. Every failure is an
 * AuthError the client may hear, never anything else:
 * - the hook's own error, an answer `{"error": {"http_code": 403, "message": "…"}}` with a message: `unknown`, or
 *   `unexpected_failure` when its http_code is 500 or absent, with the hook's message and `hookStatus` set;
 * - no answer in time: `hook_timeout` (HTTP), `hook_timeout_after_retry` (HTTP, every attempt failed to connect),
 *   `unexpected_failure` (a function cancelled by its statement timeout);
 * - an answer that is no JSON object, too large, of another content type, or a status other than 200, 202 and 204:
 *   `unexpected_failure`, `hook_payload_over_size_limit` or `hook_payload_invalid_content_type`, as GoTrue answers.
 */
export interface HookCaller {
  /** Where the hook is (its URI), for logs and metrics: never carries its secrets. */
  readonly uri: string;
  /**
   * Calls the hook with `payload`. A hook in the database runs on `stores`: a transaction's (it then sees what the
   * transaction wrote, and fails it when it raises), else `deps.stores`, in a transaction of its own.
   */
  call(payload: HookPayload, stores: Stores, options?: HookCallOptions): Promise<HookAnswer>;
}

export interface HookCallOptions {
  /**
   * The id of the message the call delivers (the outbox's), the same on every attempt at it: an HTTP hook's
   * `webhook-id`, by which a receiver drops a duplicate (Standard Webhooks). Without it each call gets its own.
   */
  readonly messageId?: string;
}

/** The hooks switched on (HOOK_<NAME>_ENABLED), by name; a hook that is off is absent and costs nothing. */
export type Hooks = { readonly [N in HookName]?: HookCaller };
