import type { PkceChallenge } from "../model/pkce.ts";
import type { User } from "../model/user.ts";
import type { Stores } from "../ports/stores.ts";
import type { Deps } from "./deps.ts";
import { sendSignInMail } from "./sign-in-mail.ts";
import { sendSmsCode } from "./sms-codes.ts";

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
  const { address } = channel;
  if (channel.provider === "email") {
    return sendSignInMail(deps, stores, { user, kind: "confirmation", address, ...options });
  }
  return sendSmsCode(deps, stores, { user, kind: "confirmation", phone: address, sms: "confirmation", passwordHash: options.passwordHash });
}
