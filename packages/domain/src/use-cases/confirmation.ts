import type { User } from "../model/user.ts";
import type { AuthEmail } from "../ports/mailer.ts";
import type { AuthSms } from "../ports/sms-sender.ts";
import type { Stores } from "../ports/stores.ts";
import type { Deps } from "./deps.ts";
import { linkTokenDigest, otpDigest } from "./digests.ts";

/** Link tokens carry 256 random bits. */
const LINK_TOKEN_BYTES = 32;

export type Channel = { readonly provider: "email"; readonly address: string } | { readonly provider: "phone"; readonly address: string };

/** A message to hand to the mailer or SMS sender once the transaction that issued its token has committed. */
export type PendingMessage = { readonly email: AuthEmail } | { readonly sms: AuthSms };

/**
 * Issues the confirmation token for a signup (replacing any earlier one) and returns the message carrying it.
 * The user's `confirmationSentAt` is the caller's to set.
 */
export async function issueConfirmation(deps: Deps, stores: Stores, user: User, channel: Channel): Promise<PendingMessage> {
  const { otp: otpPolicy } = deps.policy;
  const otp = deps.random.digits(channel.provider === "email" ? otpPolicy.emailOtpLength : otpPolicy.smsOtpLength);
  const linkToken = channel.provider === "email" ? deps.random.token(LINK_TOKEN_BYTES) : null;
  await stores.oneTimeTokens.replace({
    id: deps.random.uuid(),
    userId: user.id,
    kind: "confirmation",
    relatesTo: channel.address,
    linkTokenHash: linkToken === null ? null : linkTokenDigest(deps.secrets, linkToken),
    otpHash: otpDigest(deps.secrets, channel.address, otp),
    failedAttempts: 0,
    createdAt: deps.clock.now(),
  });
  if (linkToken === null) return { sms: { kind: "confirmation", to: channel.address, otp } };
  return { email: { kind: "confirmation", to: channel.address, linkToken, otp, redirectTo: deps.policy.siteUrl } };
}

export async function deliver(deps: Deps, message: PendingMessage): Promise<void> {
  if ("email" in message) await deps.mailer.send(message.email);
  else await deps.sms.send(message.sms);
}
