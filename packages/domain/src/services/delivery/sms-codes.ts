import type { Deps } from "../../deps.ts";
import { AuthError, isAuthError } from "../../errors.ts";
import type { OneTimeTokenKind, PendingChoices } from "../../model/one-time-token.ts";
import type { AuthSms, SmsChannel } from "../../model/sms.ts";
import { type User, withChosenMetadata } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { refusedBy } from "../abuse/refusal.ts";
import { limitFrequency, type SendPurpose } from "../abuse/send-frequency.ts";
import { issueToken } from "../tokens/issue-token.ts";
import { enqueueMessage } from "./enqueue.ts";
import { sendMessage } from "./send-message.ts";

/** GoTrue's message id for the numbers of SMS_TEST_OTP, to which nothing is sent. */
export const TEST_OTP_MESSAGE_ID = "test-otp";

/** The fixed code SMS_TEST_OTP gives this number, while SMS_TEST_OTP_VALID_UNTIL has not passed; else null. */
export function testOtpFor(deps: Deps, phone: string): string | null {
  const { testOtps, testOtpsValidUntil } = deps.policy.sms;
  const code = testOtps[phone];
  if (code === undefined) return null;
  if (testOtpsValidUntil !== null && deps.clock.now().getTime() > testOtpsValidUntil.getTime()) return null;
  return code;
}

/** RATE_LIMIT_SMS_SENT's counter. */
const SMS_QUOTA = "sms_sent";

/**
 * The limits on texting a code to `phone`: SMS_MAX_FREQUENCY for its purpose, and room left in RATE_LIMIT_SMS_SENT,
 * which the numbers of SMS_TEST_OTP do not count against (nothing is sent to them). Applied before the number is
 * looked up, so a refusal tells nothing about accounts; the quota is spent only by an SMS sent (sendSmsCode), as
 * the email quota is (see assertEmailQuotaLeft).
 */
export async function limitSmsCodes(deps: Deps, phone: string, purpose: SendPurpose): Promise<void> {
  await limitFrequency(deps, { purpose, address: phone, seconds: deps.policy.otp.smsFrequencySeconds, channel: "sms" });
  await assertSmsQuotaLeft(deps, phone);
}

/** Room left in RATE_LIMIT_SMS_SENT for an SMS to `phone`; a number of SMS_TEST_OTP, sent nothing, needs none. */
export async function assertSmsQuotaLeft(deps: Deps, phone: string): Promise<void> {
  if (testOtpFor(deps, phone) !== null) return;
  const decision = await deps.rateLimiter.peek(SMS_QUOTA, deps.policy.sms.sendLimit.events);
  if (!decision.allowed) {
    throw refusedBy(
      deps,
      "sms_quota",
      new AuthError("over_sms_send_rate_limit", "SMS rate limit exceeded", {
        retryAfterSeconds: decision.retryAfterSeconds,
      }),
    );
  }
}

/**
 * Issues a code of `kind` for the user (replacing any pending one of that kind) and texts it to `phone`, in the
 * caller's transaction, which the caller has limited with limitSmsCodes. Returns the message id.
 *
 * The SMS goes out at once, inside the transaction, so that a provider refusing it for good (a number it cannot
 * reach: `sms_send_failed`; no provider configured) fails the request and rolls the change back, as GoTrue does. When the outcome is
 * unknown (a timeout, the provider's 5xx) the change commits and the outbox tries again. A number of SMS_TEST_OTP
 * gets its fixed code and no SMS.
 */
export async function sendSmsCode(
  deps: Deps,
  stores: Stores,
  request: {
    user: User;
    kind: OneTimeTokenKind;
    phone: string;
    sms: AuthSms["kind"];
    choices?: PendingChoices;
    /** Default `sms`. */
    channel?: SmsChannel;
  },
): Promise<string> {
  const { user, kind, phone } = request;
  const testOtp = testOtpFor(deps, phone);
  const issued = await issueToken(deps, stores, {
    user,
    kind,
    channel: "sms",
    address: phone,
    ...(request.choices ? { choices: request.choices } : {}),
    ...(testOtp === null ? {} : { otp: testOtp }),
  });
  if (testOtp !== null) return TEST_OTP_MESSAGE_ID;
  const sms: AuthSms = { kind: request.sms, to: phone, otp: issued.otp, ...channelField(request.channel ?? "sms") };
  // The hook sees the user as GoTrue's does, with the data a new account's request chose.
  const shown = withChosenMetadata(user, request.choices?.userMetadata);
  return textAtOnce(deps, stores, { sms, expiresAt: issued.expiresAt, user: shown });
}

/**
 * Texts `sms` now, in the caller's transaction, spending one of RATE_LIMIT_SMS_SENT (see sendSmsCode for what
 * becomes of a failure), and returns the message id.
 */
export async function textAtOnce(deps: Deps, stores: Stores, texting: Texting): Promise<string> {
  const { sms, expiresAt, user } = texting;
  const { events, perSeconds } = deps.policy.sms.sendLimit;
  await deps.rateLimiter.consume(SMS_QUOTA, events, perSeconds);
  const message = { channel: "sms", kind: sms.kind } as const;
  const id = deps.random.uuid();
  const outbound = { channel: "sms", sms, userId: user.id } as const;
  try {
    await sendMessage(deps, { message: outbound, id, user, stores });
  } catch (error) {
    // Counted as it happens: whatever becomes of the transaction, the provider was asked.
    deps.events.record({ kind: "message_failed", message, willRetry: !isAuthError(error) });
    // A refusal the sender decided (the provider refused the number, or there is no provider) fails the request.
    if (isAuthError(error)) throw error;
    const described = error instanceof Error ? error.message : String(error);
    const firstAttempt = { outcome: "failed", error: described } as const;
    return enqueueMessage(deps, stores, outbound, { expiresAt, firstAttempt, id });
  }
  deps.events.record({ kind: "message_delivered", id, message });
  return enqueueMessage(deps, stores, outbound, { expiresAt, firstAttempt: { outcome: "delivered" }, id });
}

/** An SMS to send now: until when it is worth sending, and whose it is. */
interface Texting {
  readonly sms: AuthSms;
  readonly expiresAt: Date;
  readonly user: User;
}

/** GoTrue's words for a channel it does not know, or WhatsApp through a provider that cannot send it. */
const INVALID_CHANNEL =
  "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.";

/**
 * The `channel` of a request that texts a code: `sms` (also when absent), or `whatsapp` when the sender sends it
 * (Twilio). WhatsApp through a provider that sends SMS only is refused, as GoTrue does, rather than quietly sent as
 * an SMS (docs/compatibility.md, SMS).
 */
export function smsChannelOf(deps: Deps, channel: string | undefined): SmsChannel {
  if (channel === undefined || channel === "" || channel === "sms") return "sms";
  if (channel === "whatsapp" && deps.sms.sendsWhatsapp === true) return "whatsapp";
  throw new AuthError("validation_failed", INVALID_CHANNEL);
}

/** The SMS fields that say its channel: none for `sms`, the default. */
export function channelField(channel: SmsChannel): Pick<AuthSms, "channel"> {
  return channel === "sms" ? {} : { channel };
}
