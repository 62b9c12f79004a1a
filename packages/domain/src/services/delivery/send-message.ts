import type { Deps } from "../../deps.ts";
import { AuthError, isAuthError } from "../../errors.ts";
import type { OutboundMessage } from "../../model/outbox.ts";
import type { User } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { callHook } from "../hooks/call-hook.ts";
import { sendEmailPayload } from "../hooks/send-email.ts";
import { sendSmsPayload } from "../hooks/send-sms.ts";

/** One attempt at a message: the message, its outbox id (the same on every attempt), and its user when known. */
export interface Sending {
  readonly message: OutboundMessage;
  readonly id: string;
  /** Whose message it is; needed only by the channel's hook (hookFor), which is sent the user. */
  readonly user: User | null;
  /** The request's transaction, for a text sent within it: a hook function runs there, as GoTrue's does. */
  readonly stores?: Stores;
}

/** The hook that sends a message of this channel in place of the mailer or SMS provider, when it is on. */
export function hookFor(deps: Deps, message: OutboundMessage) {
  return message.channel === "email" ? deps.hooks.send_email : deps.hooks.send_sms;
}

/**
 * Makes one attempt at a message: through its channel's hook when that is on (send_email, send_sms: nothing then
 * goes to SMTP or the SMS provider), else through the mailer or the SMS sender. Throws an AuthError when a retry
 * would fail alike (the provider refused the number, the hook refused the message with a 4xx of its own, its user
 * is gone); any other error when a later attempt may succeed, which the outbox makes.
 */
export async function sendMessage(deps: Deps, { message, id, user, stores = deps.stores }: Sending): Promise<void> {
  const hook = hookFor(deps, message);
  if (hook === undefined) return sendWithoutHook(deps, message, id);
  if (user === null) throw new AuthError("user_not_found", "the user of this message is gone");
  const payload =
    message.channel === "email"
      ? sendEmailPayload(deps, { email: message.email, alongside: message.alongside, user, id })
      : sendSmsPayload(deps, { sms: message.sms, user, id });
  const name = message.channel === "email" ? "send_email" : "send_sms";
  try {
    await callHook(hook, { name, payload, stores, messageId: id });
  } catch (error) {
    // The request's own time, or the database, failing a function hook is the request's failure, not the hook's.
    const requestFailed = isAuthError(error, "request_timeout") || isAuthError(error, "service_unavailable");
    throw requestFailed || refusedForGood(error)
      ? error
      : new Error(`the ${name} hook failed: ${(error as Error).message}`, { cause: error });
  }
}

/** A hook's own error of 4xx: it refused the message, and would again. Timeouts, 5xx and the like may pass. */
function refusedForGood(error: unknown): boolean {
  return isAuthError(error) && error.hookStatus !== undefined && error.hookStatus < 500;
}

/**
 * Whether a failed attempt (sendMessage's) would fail alike if made again: the provider refused the number, the
 * hook refused the message, or its user is gone. A database that cannot serve now is no such failure.
 */
export function failsForGood(error: unknown): boolean {
  return isAuthError(error, "sms_send_failed") || isAuthError(error, "user_not_found") || refusedForGood(error);
}

async function sendWithoutHook(deps: Deps, message: OutboundMessage, id: string): Promise<void> {
  if (message.channel === "sms") return deps.sms.send(message.sms);
  await deps.mailer.send(message.email, { messageId: id });
  // Queued for a hook that is off now: two mails, as without one.
  if (message.alongside) await deps.mailer.send(message.alongside, { messageId: `${id}-current` });
}
