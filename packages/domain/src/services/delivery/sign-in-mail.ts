import type { Deps } from "../../deps.ts";
import type { PendingChoices } from "../../model/one-time-token.ts";
import type { PkceChallenge } from "../../model/pkce.ts";
import { type User, withChosenMetadata } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { issueToken } from "../tokens/issue-token.ts";
import { queueEmail } from "./email-quota.ts";
import { linkEmail } from "./link-email.ts";

/** The mails whose link signs the person in. */
export type SignInMailKind = "confirmation" | "invite" | "magic_link" | "recovery";

/**
 * Issues a token of `kind` for the user (replacing any pending one of that kind) and queues the mail carrying its
 * link and code to `address`, in the caller's transaction. Returns the message id.
 */
export async function sendSignInMail(
  deps: Deps,
  stores: Stores,
  request: {
    user: User;
    kind: SignInMailKind;
    address: string;
    redirectTo: string;
    pkce?: PkceChallenge | null;
    /** See issueToken. */
    choices?: PendingChoices;
  },
): Promise<string> {
  const { user, kind, address } = request;
  const issued = await issueToken(deps, stores, {
    user,
    kind,
    channel: "email",
    address,
    pkce: request.pkce ?? null,
    ...(request.choices ? { choices: request.choices } : {}),
  });
  // The mail speaks to whoever asked for it, with the data they chose.
  const data = withChosenMetadata(user, request.choices?.userMetadata).userMetadata;
  const mail = linkEmail({ tokenKind: kind, user, to: address, issued, redirectTo: request.redirectTo, data });
  return queueEmail(deps, stores, { email: mail, userId: user.id, expiresAt: issued.expiresAt });
}
