import type { Deps } from "../../deps.ts";
import type { EmailChangeMail } from "../../model/outbox.ts";
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
 * With the send_email hook on, both go as one message, for one call of the hook with both tokens (GoTrue's).
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
  const mailTo = async (kind: "email_change_new" | "email_change_current", to: string) => {
    const issued = await issueToken(deps, stores, { user, kind, channel: "email", address: to, pkce: options.pkce });
    const data = user.userMetadata;
    const email = linkEmail({ tokenKind: kind, user, to, issued, redirectTo: options.redirectTo, data });
    return { email: email as EmailChangeMail, expiresAt: issued.expiresAt };
  };
  const toNew = await mailTo("email_change_new", newEmail);
  const toCurrent =
    deps.policy.email.secureEmailChange && user.email !== null
      ? await mailTo("email_change_current", user.email)
      : null;
  const userId = user.id;
  if (toCurrent !== null && deps.hooks.send_email !== undefined) {
    return queueEmail(deps, stores, { ...toNew, userId, alongside: toCurrent.email });
  }
  const messageId = await queueEmail(deps, stores, { ...toNew, userId });
  if (toCurrent !== null) await queueEmail(deps, stores, { ...toCurrent, userId });
  return messageId;
}
