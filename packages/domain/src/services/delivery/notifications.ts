import type { Deps } from "../../deps.ts";
import type { AuthEmail, NotificationKind } from "../../model/mail.ts";
import type { Stores } from "../../ports/stores.ts";
import { enqueueMessage } from "./enqueue.ts";

type Notification = Extract<AuthEmail, { kind: NotificationKind }>;

/** Notifications carry no token, but are still worth sending for a day. */
const NOTIFICATION_LIFETIME_SECONDS = 86_400;

/**
 * Queues a notification to the user `userId` in the caller's transaction; whether the operator wants it is the caller's to check. Not
 * counted against RATE_LIMIT_EMAIL_SENT: a change already made is told, whatever the quota.
 */
export function queueNotification(
  deps: Deps,
  stores: Stores,
  notification: Notification,
  userId: string,
): Promise<string> {
  const until = new Date(deps.clock.now().getTime() + NOTIFICATION_LIFETIME_SECONDS * 1000);
  return enqueueMessage(deps, stores, { channel: "email", email: notification, userId }, { expiresAt: until });
}
