import type { Deps } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { refusedBy } from "./refusal.ts";

/** What a message to an address is for, as far as how often it may be sent goes. */
export type SendPurpose = "confirmation" | "email_change" | "phone_change" | "sign_in_mail" | "reauthentication";

/**
 * Refuses a second request of `purpose` for `address` within `seconds`, with GoTrue's wording. Every flow that
 * sends the same message to the same address uses the same purpose, so no two of them can be alternated to send
 * more often. Keyed by a digest of the address and applied whether or not any account has it, so the refusal
 * tells nothing about accounts.
 */
export async function limitFrequency(
  deps: Deps,
  request: { purpose: SendPurpose; address: string; seconds: number; channel: "email" | "sms" },
): Promise<void> {
  const key = `${request.purpose}:${deps.secrets.digest(request.address)}`;
  const decision = await deps.rateLimiter.consume(key, 1, request.seconds);
  if (decision.allowed) return;
  throw refusedBy(
    deps,
    request.channel === "email" ? "email_frequency" : "sms_frequency",
    new AuthError(
      request.channel === "email" ? "over_email_send_rate_limit" : "over_sms_send_rate_limit",
      `For security purposes, you can only request this after ${decision.retryAfterSeconds} seconds.`,
      { retryAfterSeconds: decision.retryAfterSeconds },
    ),
  );
}
