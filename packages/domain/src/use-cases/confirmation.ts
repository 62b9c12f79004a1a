import type { PkceChallenge } from "../model/pkce.ts";
import type { User } from "../model/user.ts";
import type { Stores } from "../ports/stores.ts";
import type { Deps } from "./deps.ts";
import { issueToken, queueEmail, queueSms } from "./one-time-tokens.ts";

export type Channel = { readonly provider: "email"; readonly address: string } | { readonly provider: "phone"; readonly address: string };

/**
 * Issues the confirmation token for a signup (replacing any earlier one) and queues the mail or SMS carrying it,
 * in the caller's transaction. `passwordHash` is the password the signup chose, which the account gets once
 * confirmed (see apply-verification.ts). The user's `confirmationSentAt` is the caller's to set. Returns the
 * message id.
 */
export async function sendConfirmation(
  deps: Deps,
  stores: Stores,
  user: User,
  channel: Channel,
  options: { redirectTo: string; pkce?: PkceChallenge | null; passwordHash: string | null },
): Promise<string> {
  const byEmail = channel.provider === "email";
  const issued = await issueToken(deps, stores, {
    user,
    kind: "confirmation",
    channel: byEmail ? "email" : "sms",
    address: channel.address,
    pkce: byEmail ? options.pkce : null,
    passwordHash: options.passwordHash,
  });
  if (!byEmail || issued.linkToken === null) {
    return queueSms(deps, stores, { kind: "confirmation", to: channel.address, otp: issued.otp }, issued.expiresAt);
  }
  const email = {
    kind: "confirmation",
    to: channel.address,
    linkType: "signup",
    linkToken: issued.linkToken,
    otp: issued.otp,
    redirectTo: options.redirectTo,
    data: user.userMetadata,
  } as const;
  return queueEmail(deps, stores, email, issued.expiresAt);
}
