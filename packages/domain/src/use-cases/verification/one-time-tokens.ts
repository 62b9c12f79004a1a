import { AuthError } from "../../errors.ts";
import { NO_CHOICES, type OneTimeTokenKind, type PendingChoices, PKCE_PREFIX } from "../../model/one-time-token.ts";
import type { PkceChallenge } from "../../model/pkce.ts";
import type { User } from "../../model/user.ts";
import type { AuthEmail } from "../../ports/mailer.ts";
import type { Stores } from "../../ports/stores.ts";
import { refusedBy } from "../abuse/refusal.ts";
import { enqueueMessage } from "../delivery/outbox.ts";
import type { Deps } from "../deps.ts";
import { linkTokenDigest, otpDigest } from "./digests.ts";

/** What a message to an address is for, as far as how often it may be sent goes. */
export type SendPurpose = "confirmation" | "email_change" | "phone_change" | "sign_in_mail" | "reauthentication";

/** Link tokens carry 256 random bits. */
const LINK_TOKEN_BYTES = 32;

export interface IssuedToken {
  /** Null for codes sent by SMS, which have no link. */
  readonly linkToken: string | null;
  readonly otp: string;
  /** When the token stops working: the moment after which delivering its message is pointless. */
  readonly expiresAt: Date;
}

/**
 * Issues a token of `kind` for `user`, sent to `address` by `channel`, replacing the user's pending token of that
 * kind, in the caller's transaction. Only digests are stored; the plain token travels in the message.
 */
export async function issueToken(
  deps: Deps,
  stores: Stores,
  request: {
    user: User;
    kind: OneTimeTokenKind;
    channel: "email" | "sms";
    address: string;
    pkce?: PkceChallenge | null;
    /** Whether an email carries a link as well as a code (reauthentication has only a code). */
    link?: boolean;
    /** What the request that asked for this token chose for an unproven account: applied once it is verified. */
    choices?: PendingChoices;
    /** A fixed code instead of a random one (SMS_TEST_OTP numbers). */
    otp?: string;
  },
): Promise<IssuedToken> {
  const { otp: otpPolicy } = deps.policy;
  const now = deps.clock.now();
  const isEmail = request.channel === "email";
  const otp = request.otp ?? deps.random.digits(isEmail ? otpPolicy.emailOtpLength : otpPolicy.smsOtpLength);
  const pkce = request.pkce ?? null;
  const linkToken =
    isEmail && request.link !== false ? `${pkce ? PKCE_PREFIX : ""}${deps.random.token(LINK_TOKEN_BYTES)}` : null;
  await stores.oneTimeTokens.replace({
    id: deps.random.uuid(),
    userId: request.user.id,
    kind: request.kind,
    relatesTo: request.address,
    linkTokenHash: linkToken === null ? null : linkTokenDigest(deps.secrets, linkToken),
    otpHash: otpDigest(deps.secrets, request.address, otp),
    failedAttempts: 0,
    codeChallenge: pkce?.challenge ?? null,
    codeChallengeMethod: pkce?.method ?? null,
    ...(request.choices ?? NO_CHOICES),
    createdAt: now,
  });
  const lifetimeSeconds = isEmail ? otpPolicy.emailOtpExpSeconds : otpPolicy.smsOtpExpSeconds;
  return { linkToken, otp, expiresAt: new Date(now.getTime() + lifetimeSeconds * 1000) };
}

/** RATE_LIMIT_EMAIL_SENT's counter: every mail someone asked for, whatever its kind or address. */
const EMAIL_QUOTA = "email_sent";

/**
 * Refuses with GoTrue's 429 once RATE_LIMIT_EMAIL_SENT is spent (across every instance when the rate limiter is
 * shared), counting nothing. security: called before the address is looked up, alike for every address, so the
 * refusal tells nothing about accounts; the quota is spent only by mail actually queued (queueEmail), so requests
 * that mail nobody (unknown addresses) cannot stop the mail of everyone else. Notifications of changes already
 * made are neither checked nor counted: they must not be lost to a quota someone else exhausted.
 */
export async function assertEmailQuotaLeft(deps: Deps): Promise<void> {
  const decision = await deps.rateLimiter.peek(EMAIL_QUOTA, deps.policy.email.sendLimit.events);
  if (!decision.allowed) {
    throw refusedBy(
      deps,
      "email_quota",
      new AuthError("over_email_send_rate_limit", "email rate limit exceeded", {
        retryAfterSeconds: decision.retryAfterSeconds,
      }),
    );
  }
}

/**
 * Queues a mail someone asked for in the caller's transaction, spending one of RATE_LIMIT_EMAIL_SENT on it. The
 * caller checked there was room (assertEmailQuotaLeft) before it looked anything up; requests in flight together
 * may overrun the quota by a few, which is better than an answer that depends on whether this one mailed.
 * Returns the message id.
 */
export async function queueEmail(deps: Deps, stores: Stores, email: AuthEmail, expiresAt: Date): Promise<string> {
  const { events, perSeconds } = deps.policy.email.sendLimit;
  await deps.rateLimiter.consume(EMAIL_QUOTA, events, perSeconds);
  return enqueueMessage(deps, stores, { channel: "email", email }, expiresAt);
}

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
