import type { Deps } from "../../deps.ts";
import type { PkceChallenge } from "../../model/pkce.ts";
import type { User } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { queueEmail } from "../delivery/email-quota.ts";
import { linkEmail } from "../delivery/link-email.ts";
import { issueToken } from "../tokens/issue-token.ts";

/**
 * Sends the confirmations of the user's pending email change, in the caller's transaction: to the new address,
 * and, as Supabase's secure email change does (even under autoconfirm), to the current one too, so that neither
 * address alone can move the account. With a PKCE challenge the links lead to a code, as a PKCE sign-in's do.
 * Returns the id of the message to the new address.
 */
export async function sendEmailChange(
  deps: Deps,
  stores: Stores,
  user: User,
  options: { redirectTo: string; pkce: PkceChallenge | null },
): Promise<string> {
  const newEmail = user.newEmail;
  if (newEmail === null) throw new Error("no pending email change");
  const mail = async (kind: "email_change_new" | "email_change_current", to: string) => {
    const issued = await issueToken(deps, stores, { user, kind, channel: "email", address: to, pkce: options.pkce });
    const email = linkEmail({
      tokenKind: kind,
      user,
      to,
      issued,
      redirectTo: options.redirectTo,
      data: user.userMetadata,
    });
    return queueEmail(deps, stores, email, issued.expiresAt);
  };
  const messageId = await mail("email_change_new", newEmail);
  if (deps.policy.email.secureEmailChange && user.email !== null) await mail("email_change_current", user.email);
  return messageId;
}
