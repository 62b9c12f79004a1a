import type { User } from "../model/user.ts";
import type { Stores } from "../ports/stores.ts";
import type { Deps } from "./deps.ts";
import { linkTokenDigest, otpDigest } from "./digests.ts";
import { enqueueMessage } from "./outbox.ts";

/** Link tokens carry 256 random bits. */
const LINK_TOKEN_BYTES = 32;

export type Channel = { readonly provider: "email"; readonly address: string } | { readonly provider: "phone"; readonly address: string };

/**
 * Issues the confirmation token for a signup (replacing any earlier one) and queues the message carrying it, in
 * the caller's transaction. The user's `confirmationSentAt` is the caller's to set. Returns the message id.
 */
export async function issueConfirmation(deps: Deps, stores: Stores, user: User, channel: Channel): Promise<string> {
  const { otp: otpPolicy } = deps.policy;
  const now = deps.clock.now();
  const isEmail = channel.provider === "email";
  const otp = deps.random.digits(isEmail ? otpPolicy.emailOtpLength : otpPolicy.smsOtpLength);
  const linkToken = isEmail ? deps.random.token(LINK_TOKEN_BYTES) : null;
  await stores.oneTimeTokens.replace({
    id: deps.random.uuid(),
    userId: user.id,
    kind: "confirmation",
    relatesTo: channel.address,
    linkTokenHash: linkToken === null ? null : linkTokenDigest(deps.secrets, linkToken),
    otpHash: otpDigest(deps.secrets, channel.address, otp),
    failedAttempts: 0,
    createdAt: now,
  });
  const lifetimeSeconds = isEmail ? otpPolicy.emailOtpExpSeconds : otpPolicy.smsOtpExpSeconds;
  const expiresAt = new Date(now.getTime() + lifetimeSeconds * 1000);
  if (linkToken === null) {
    return enqueueMessage(deps, stores, { channel: "sms", sms: { kind: "confirmation", to: channel.address, otp } }, expiresAt);
  }
  const email = {
    kind: "confirmation",
    to: channel.address,
    linkType: "signup",
    linkToken,
    otp,
    redirectTo: deps.policy.siteUrl,
    data: user.userMetadata,
  } as const;
  return enqueueMessage(deps, stores, { channel: "email", email }, expiresAt);
}
