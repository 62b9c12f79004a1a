import type { AuthEmail } from "../ports/mailer.ts";
import type { Stores } from "../ports/stores.ts";
import type { Deps } from "./deps.ts";
import { queueEmail } from "./one-time-tokens.ts";

type Notification = Extract<AuthEmail, { kind: "password_changed" | "email_changed" | "phone_changed" }>;

/**
 * Queues a notification in the caller's transaction; whether the operator wants it is the caller's to check. Not
 * counted against RATE_LIMIT_EMAIL_SENT: a change already made is told, whatever the quota.
 */
export function queueNotification(deps: Deps, stores: Stores, notification: Notification): Promise<string> {
  return queueEmail(deps, stores, notification);
}
