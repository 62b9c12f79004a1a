import { AuthError } from "../errors.ts";
import { type OneTimeTokenKind, PKCE_PREFIX } from "../model/one-time-token.ts";
import type { PkceChallenge } from "../model/pkce.ts";
import type { User } from "../model/user.ts";
import type { AuthEmail } from "../ports/mailer.ts";
import type { Stores } from "../ports/stores.ts";
import type { Deps } from "./deps.ts";
import { linkTokenDigest, otpDigest } from "./digests.ts";
import { enqueueMessage } from "./outbox.ts";

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
    /** The password the signup that asked for this token chose: the account gets it once the token is verified. */
    passwordHash?: string | null;
    /** A fixed code instead of a random one (SMS_TEST_OTP numbers). */
    otp?: string;
  },
): Promise<IssuedToken> {
  const { otp: otpPolicy } = deps.policy;
  const now = deps.clock.now();
  const isEmail = request.channel === "email";
  const otp = request.otp ?? deps.random.digits(isEmail ? otpPolicy.emailOtpLength : otpPolicy.smsOtpLength);
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
 * Queues an email in the caller's transaction; the caller has counted it against RATE_LIMIT_EMAIL_SENT (see
 * consumeEmailQuota). Returns the message id.
 */
export async function queueEmail(deps: Deps, stores: Stores, email: AuthEmail, expiresAt?: Date): Promise<string> {
  const until = expiresAt ?? new Date(deps.clock.now().getTime() + NOTIFICATION_LIFETIME_SECONDS * 1000);
  return enqueueMessage(deps, stores, { channel: "email", email }, until);
}

/**
 * Counts `count` emails against RATE_LIMIT_EMAIL_SENT (across every instance when the rate limiter is shared);
 * refuses with GoTrue's 429 past it. security: a flow whose answer must not tell whether an account exists
 * counts before looking, the same for any address, so running out of quota tells nothing either. Notifications
 * of changes already made are not counted: they must not be lost to a quota someone else exhausted.
 */
export async function consumeEmailQuota(deps: Deps, count = 1): Promise<void> {
  const { events, perSeconds } = deps.policy.email.sendLimit;
  for (let sent = 0; sent < count; sent++) {
    const decision = await deps.rateLimiter.consume("email_sent", events, perSeconds);
    if (!decision.allowed) {
      throw new AuthError("over_email_send_rate_limit", "email rate limit exceeded", { retryAfterSeconds: decision.retryAfterSeconds });
    }
  }
}

/** How many mails an email change sends: the new address, and the current one under secure email change. */
export function emailChangeMailCount(deps: Deps): number {
  return deps.policy.email.secureEmailChange ? 2 : 1;
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
  throw new AuthError(
    request.channel === "email" ? "over_email_send_rate_limit" : "over_sms_send_rate_limit",
    `For security purposes, you can only request this after ${decision.retryAfterSeconds} seconds.`,
    { retryAfterSeconds: decision.retryAfterSeconds },
  );
}
