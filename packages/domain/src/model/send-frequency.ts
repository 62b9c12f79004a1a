import { AuthError, type ErrorCode } from "../errors.ts";

/** Refuses another message of a kind sent less than `frequencySeconds` ago, with GoTrue's wording. */
export function assertMaySendAgain(
  sentAt: Date | null,
  now: Date,
  frequencySeconds: number,
  code: Extract<ErrorCode, "over_email_send_rate_limit" | "over_sms_send_rate_limit">,
): void {
  if (sentAt === null) return;
  const waitMs = sentAt.getTime() + frequencySeconds * 1000 - now.getTime();
  if (waitMs <= 0) return;
  const waitSeconds = Math.ceil(waitMs / 1000);
  throw new AuthError(code, `For security purposes, you can only request this after ${waitSeconds} seconds.`, {
    retryAfterSeconds: waitSeconds,
  });
}
