import type { Contact } from "../../model/contact.ts";
import { type Metadata, sameJson } from "../../model/metadata.ts";
import { NO_CHOICES, type PendingChoices } from "../../model/one-time-token.ts";
import type { PkceChallenge } from "../../model/pkce.ts";
import type { User } from "../../model/user.ts";
import type { SmsChannel } from "../../ports/sms-sender.ts";
import type { Stores } from "../../ports/stores.ts";
import { sendSmsCode } from "../delivery/sms-codes.ts";
import type { Deps } from "../deps.ts";
import { sendSignInMail } from "../sign-in/sign-in-mail.ts";

/**
 * Issues the confirmation token for a signup (replacing any earlier one) and queues the mail or SMS carrying it,
 * in the caller's transaction. `choices` are what the request chose (password, user_metadata), which the account
 * gets once confirmed by this token (see apply-verification.ts). The user's `confirmationSentAt` is the caller's
 * to set. `channel` is how a phone's code goes (default `sms`). Returns the message id.
 */
export async function sendConfirmation(
  deps: Deps,
  stores: Stores,
  user: User,
  contact: Contact,
  options: { redirectTo: string; pkce?: PkceChallenge | null; choices: PendingChoices; channel?: SmsChannel },
): Promise<string> {
  const { address } = contact;
  if (contact.provider === "email") {
    return sendSignInMail(deps, stores, { user, kind: "confirmation", address, ...options });
  }
  return sendSmsCode(deps, stores, {
    user,
    kind: "confirmation",
    phone: address,
    sms: "confirmation",
    choices: options.choices,
    ...(options.channel ? { channel: options.channel } : {}),
  });
}

/**
 * What a sign-in mail or code carries when it confirms an unproven account again (/otp, /magiclink asked again):
 * no password, since whoever asked for it chose none, and the pending confirmation's data only if this request
 * chose the same, so that one party asking again never carries another party's data to whoever proves the address.
 */
export async function choicesOfSignInCode(
  stores: Stores,
  user: User,
  data: Metadata | undefined,
): Promise<PendingChoices> {
  const pending = await stores.oneTimeTokens.findByUser(user.id, "confirmation");
  const same = pending?.userMetadata != null && sameJson(pending.userMetadata, data ?? {});
  return { ...NO_CHOICES, userMetadata: same ? pending.userMetadata : null };
}
