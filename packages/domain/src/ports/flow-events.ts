import type { AuthEmailKind } from "../model/mail.ts";
import type { AuthMethod } from "../model/session.ts";
import type { AuthSms } from "../model/sms.ts";
import type { StaleRowKind } from "./stale-rows.ts";

/**
 * The limits a request can be refused by: a client's requests per route group (`client_<bucket>`, see
 * request-limits.ts), the instance-wide send quotas, one address's send frequency, a client's wrong codes, and an
 * account's failed passwords.
 */
export type RateLimitName =
  | `client_${string}`
  | "email_quota"
  | "sms_quota"
  | "email_frequency"
  | "sms_frequency"
  | "wrong_codes"
  | "password_failures";

/** A message of the outbox, by channel and kind (`email`/`recovery`, `sms`/`otp`). */
export type MessageKind =
  | { readonly channel: "email"; readonly kind: AuthEmailKind }
  | { readonly channel: "sms"; readonly kind: AuthSms["kind"] };

/**
 * What happened in a flow, for an operator's counters. Recorded once the change it reports has committed, so a
 * rolled-back attempt is never counted.
 */
export type FlowEvent =
  /** A session began; `provider` names the OAuth provider of an `oauth` sign-in. */
  | { readonly kind: "signed_in"; readonly method: AuthMethod; readonly provider?: string }
  /** Someone created their own account: by email, phone, anonymously or through an OAuth provider (its name). */
  | { readonly kind: "signed_up"; readonly provider: string }
  /** A refresh token was exchanged: rotated to a child, or answered with the current one within the reuse interval. */
  | { readonly kind: "refreshed"; readonly rotated: boolean }
  /** A revoked refresh token came back; with `familyRevoked`, its session was ended for it. */
  | { readonly kind: "refresh_token_reused"; readonly familyRevoked: boolean }
  | { readonly kind: "rate_limited"; readonly limit: RateLimitName }
  /** `missing`: no token; `rejected`: the provider said no. A provider that cannot be asked is no captcha failure. */
  /** A WebAuthn credential reported a signature counter at or below the last one: it may have been cloned. */
  | {
      readonly kind: "webauthn_counter_regressed";
      readonly credential: "passkey" | "factor";
      /** The passkey's or the factor's id, and its user's. */
      readonly id: string;
      readonly userId: string;
    }
  | { readonly kind: "captcha_failed"; readonly reason: "missing" | "rejected" }
  /**
   * A SAML provider's metadata needs its admin: given as XML, it expires within 30 days (`expiring`); fetched from
   * its URL, it went stale and could not be fetched again (`refresh_failed`: the sign-in went on with what was kept).
   */
  | {
      readonly kind: "saml_metadata_attention";
      readonly problem: "expiring" | "refresh_failed";
      readonly providerId: string;
      readonly entityId: string;
      readonly validUntil: Date | null;
      readonly reason?: string;
    }
  /**
   * The leaked-password service could not be asked (PASSWORD_HIBP_*): `refused`, the request was refused for it
   * (PASSWORD_HIBP_FAIL_CLOSED); else the password passed unchecked. `reason` says why, for the operator.
   */
  | { readonly kind: "pwned_check_failed"; readonly refused: boolean; readonly reason: string }
  /** The clean-up deleted `count` stale rows of a kind (DB_CLEANUP_ENABLED). */
  | { readonly kind: "stale_rows_deleted"; readonly rows: StaleRowKind; readonly count: number }
  /** `id`: the message's outbox entry (a mail's Message-ID). A code texted within its request counts at once. */
  | { readonly kind: "message_delivered"; readonly id: string; readonly message: MessageKind }
  | { readonly kind: "message_failed"; readonly message: MessageKind | null; readonly willRetry: boolean };

/**
 * Where the flows report what happened, so that metrics can count it without the domain knowing any metrics
 * library. Recording is synchronous and never fails the flow: an implementation swallows its own errors.
 */
export interface FlowEvents {
  record(event: FlowEvent): void;
}
