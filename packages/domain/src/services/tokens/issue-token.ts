import type { Deps } from "../../deps.ts";
import { NO_CHOICES, type OneTimeTokenKind, type PendingChoices, PKCE_PREFIX } from "../../model/one-time-token.ts";
import type { PkceChallenge } from "../../model/pkce.ts";
import type { User } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { linkTokenDigest, otpDigest } from "./digests.ts";

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
