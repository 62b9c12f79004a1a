import type { Deps } from "../../deps.ts";
import type { Contact } from "../../model/contact.ts";
import type { PendingChoices } from "../../model/one-time-token.ts";
import type { PkceChallenge } from "../../model/pkce.ts";
import type { SmsChannel } from "../../model/sms.ts";
import type { User } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { sendSignInMail } from "./sign-in-mail.ts";
import { sendSmsCode } from "./sms-codes.ts";

/** A confirmation to send: to which address, and what the token carries. */
export interface ConfirmationRequest {
  readonly contact: Contact;
  readonly redirectTo: string;
  readonly pkce?: PkceChallenge | null;
  readonly choices: PendingChoices;
  readonly channel?: SmsChannel;
}

/**
 * Issues the confirmation token for a signup (replacing any earlier one) and queues the mail or SMS carrying it,
 * in the caller's transaction, to `contact`. `choices` are what the request chose (password, user_metadata), which
 * the account gets once confirmed by this token (see apply-verification.ts). The user's `confirmationSentAt` is the
 * caller's to set. `channel` is how a phone's code goes (default `sms`). Returns the message id.
 */
export async function sendConfirmation(
  deps: Deps,
  stores: Stores,
  user: User,
  request: ConfirmationRequest,
): Promise<string> {
  const { contact, ...options } = request;
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
