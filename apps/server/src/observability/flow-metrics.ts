import {
  EMAIL_ACTION_TYPES,
  type FlowEvent,
  type FlowEvents,
  type MessageKind,
  type OutboxDepth,
} from "@latchkey/domain";
import type { Attributes, Counter, Meter } from "@opentelemetry/api";

// The auth flows' counters, fed by the domain's FlowEvents port, and the outbox's gauges. Names follow GoTrue where
// GoTrue counts the same thing (its email send counters); the rest are Latchkey's, under `auth.`. The list, with
// what each counts, is in the README's Metrics section.

/** The counters each flow event adds to. Recording never throws into a flow (the port's promise). */
export function flowEventCounters(meter: Meter): FlowEvents {
  const counter = (name: string, description: string): Counter => meter.createCounter(name, { description });
  const signIns = counter("auth.sign_ins", "Sessions started, by the method that authenticated them.");
  const signUps = counter("auth.sign_ups", "Accounts people created themselves, by provider.");
  const refreshes = counter("auth.token_refreshes", "Refresh tokens exchanged for a new session grant.");
  const reuses = counter("auth.refresh_token_reuses", "Revoked refresh tokens presented again.");
  const refusals = counter("auth.rate_limit_refusals", "Requests refused by a rate limit, by limit.");
  const captchaFailures = counter("auth.captcha_failures", "Requests refused by the captcha check.");
  const counterRegressions = counter(
    "auth.webauthn_counter_regressions",
    "WebAuthn answers refused because the signature counter went backwards (a cloned key), by credential kind.",
  );
  const pwnedCheckFailures = counter(
    "auth.pwned_password_check_failures",
    "Passwords the leaked-password service could not be asked about, by whether the request was refused for it.",
  );
  // GoTrue's name and meaning (its total), with the kind of row as an attribute of ours.
  const cleaned = counter("gotrue_cleanup_affected_rows", "Number of affected rows from cleaning up stale entities");
  const deliveries = counter("auth.outbox.deliveries", "Messages the mail server or SMS provider accepted.");
  const failures = counter("auth.outbox.failures", "Delivery attempts that failed.");
  const emailSends = counter("global_auth_email_send_operations_total", "Number of email send operations");
  const emailErrors = counter("global_auth_email_send_errors_total", "Number of email send errors");

  const countMessage = (message: MessageKind | null, delivered: boolean, attributes: Attributes) => {
    const kind = message === null ? {} : { channel: message.channel, kind: message.kind };
    (delivered ? deliveries : failures).add(1, { ...kind, ...attributes });
    if (message?.channel !== "email") return;
    const type = { type: EMAIL_ACTION_TYPES[message.kind] };
    emailSends.add(1, type);
    if (!delivered) emailErrors.add(1, type);
  };

  const count = (event: FlowEvent) => {
    switch (event.kind) {
      case "signed_in":
        return signIns.add(1, { method: event.method, ...(event.provider ? { provider: event.provider } : {}) });
      case "signed_up":
        return signUps.add(1, { provider: event.provider });
      case "refreshed":
        return refreshes.add(1, { rotated: event.rotated });
      case "refresh_token_reused":
        return reuses.add(1, { session_revoked: event.familyRevoked });
      case "rate_limited":
        return refusals.add(1, { limit: event.limit });
      case "webauthn_counter_regressed":
        return counterRegressions.add(1, { credential: event.credential });
      case "captcha_failed":
        return captchaFailures.add(1, { reason: event.reason });
      case "pwned_check_failed":
        return pwnedCheckFailures.add(1, { refused: event.refused });
      case "saml_metadata_attention":
        return;
      case "stale_rows_deleted":
        return cleaned.add(event.count, { kind: event.rows });
      case "message_delivered":
        return countMessage(event.message, true, {});
      case "message_failed":
        return countMessage(event.message, false, { will_retry: event.willRetry });
    }
  };
  return {
    record(event) {
      try {
        count(event);
      } catch {
        // A metric is never worth a failed sign-in; the SDK reports its own troubles through diag.
      }
    },
  };
}

/**
 * `auth.outbox.pending` and `auth.outbox.oldest_pending_age` per channel, read from the database on each collection
 * (one grouped count over the partial index of messages still to deliver). When a read fails (the database is
 * down), the SDK keeps reporting the last values read; the pool's gauges and the error rates tell that story.
 */
export function observeOutbox(meter: Meter, depth: () => Promise<readonly OutboxDepth[]>): void {
  const pending = meter.createObservableGauge("auth.outbox.pending", {
    unit: "{message}",
    description: "Messages still to deliver: due, waiting for a retry, or being sent.",
  });
  const oldest = meter.createObservableGauge("auth.outbox.oldest_pending_age", {
    unit: "s",
    description: "How long the oldest message still to deliver has waited.",
  });
  meter.addBatchObservableCallback(
    async (result) => {
      for (const channel of await depth()) {
        result.observe(pending, channel.pending, { channel: channel.channel });
        result.observe(oldest, channel.oldestAgeSeconds, { channel: channel.channel });
      }
    },
    [pending, oldest],
  );
}
