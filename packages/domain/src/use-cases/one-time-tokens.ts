import { AuthError } from "../errors.ts";
import { type OneTimeTokenKind, PKCE_PREFIX } from "../model/one-time-token.ts";
import type { PkceChallenge } from "../model/pkce.ts";
import type { User } from "../model/user.ts";
import type { AuthEmail } from "../ports/mailer.ts";
import type { AuthSms } from "../ports/sms-sender.ts";
import type { Stores } from "../ports/stores.ts";
import type { Deps } from "./deps.ts";
import { linkTokenDigest, otpDigest } from "./digests.ts";
import { enqueueMessage } from "./outbox.ts";

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
    /** The password the signup that asked for this token chose: the account gets it once the token is verified. */
    passwordHash?: string | null;
  },
): Promise<IssuedToken> {
  const { otp: otpPolicy } = deps.policy;
  const now = deps.clock.now();
  const isEmail = request.channel === "email";
  const otp = deps.random.digits(isEmail ? otpPolicy.emailOtpLength : otpPolicy.smsOtpLength);
  const pkce = request.pkce ?? null;
  const linkToken = isEmail && request.link !== false ? `${pkce ? PKCE_PREFIX : ""}${deps.random.token(LINK_TOKEN_BYTES)}` : null;
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
    passwordHash: request.passwordHash ?? null,
    createdAt: now,
  });
  const lifetimeSeconds = isEmail ? otpPolicy.emailOtpExpSeconds : otpPolicy.smsOtpExpSeconds;
  return { linkToken, otp, expiresAt: new Date(now.getTime() + lifetimeSeconds * 1000) };
}

/** Notifications carry no token, but are still worth sending for a day. */
const NOTIFICATION_LIFETIME_SECONDS = 86_400;

/**
 * Queues an email in the caller's transaction, within RATE_LIMIT_EMAIL_SENT (counted across every instance when
 * the rate limiter is shared). Returns the message id.
 */
export async function queueEmail(deps: Deps, stores: Stores, email: AuthEmail, expiresAt?: Date): Promise<string> {
  await consumeEmailQuota(deps);
  const until = expiresAt ?? new Date(deps.clock.now().getTime() + NOTIFICATION_LIFETIME_SECONDS * 1000);
  return enqueueMessage(deps, stores, { channel: "email", email }, until);
}

export async function queueSms(deps: Deps, stores: Stores, sms: AuthSms, expiresAt: Date): Promise<string> {
  return enqueueMessage(deps, stores, { channel: "sms", sms }, expiresAt);
}

/** Counts one email against RATE_LIMIT_EMAIL_SENT; refuses with GoTrue's 429 past it. */
export async function consumeEmailQuota(deps: Deps): Promise<void> {
  const { events, perSeconds } = deps.policy.email.sendLimit;
  const decision = await deps.rateLimiter.consume("email_sent", events, perSeconds);
  if (!decision.allowed) {
    throw new AuthError("over_email_send_rate_limit", "email rate limit exceeded", { retryAfterSeconds: decision.retryAfterSeconds });
  }
}

/**
 * Refuses a second request of `purpose` for `address` within `seconds`, with GoTrue's wording. Keyed by a digest
 * of the address and applied whether or not any account has it, so the refusal tells nothing about accounts.
 */
export async function limitFrequency(
  deps: Deps,
  request: { purpose: string; address: string; seconds: number; channel: "email" | "sms" },
): Promise<void> {
  const key = `${request.purpose}:${deps.secrets.digest(request.address)}`;
  const decision = await deps.rateLimiter.consume(key, 1, request.seconds);
  if (decision.allowed) return;
  throw new AuthError(
    request.channel === "email" ? "over_email_send_rate_limit" : "over_sms_send_rate_limit",
    `For security purposes, you can only request this after ${decision.retryAfterSeconds} seconds.`,
    { retryAfterSeconds: decision.retryAfterSeconds },
  );
}
