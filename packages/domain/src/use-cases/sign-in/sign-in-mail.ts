import type { PendingChoices } from "../../model/one-time-token.ts";
import type { PkceChallenge } from "../../model/pkce.ts";
import { type User, withChosenMetadata } from "../../model/user.ts";
import type { AuthEmail, LinkType } from "../../ports/mailer.ts";
import type { Stores } from "../../ports/stores.ts";
import type { Deps } from "../deps.ts";
import { issueToken, queueEmail } from "../verification/one-time-tokens.ts";

/** The mails whose link signs the person in, and the type each link is verified as. */
const LINK_TYPES = { confirmation: "signup", invite: "invite", magic_link: "magiclink", recovery: "recovery" } as const satisfies Record<
  string,
  LinkType
>;

export type SignInMailKind = keyof typeof LINK_TYPES;

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
  const mail: AuthEmail = {
    kind,
    to: address,
    linkType: LINK_TYPES[kind],
    linkToken: issued.linkToken!,
    otp: issued.otp,
    redirectTo: request.redirectTo,
    // The mail speaks to whoever asked for it, with the data they chose.
    data: withChosenMetadata(user, request.choices?.userMetadata).userMetadata,
  };
  return queueEmail(deps, stores, mail, issued.expiresAt);
}
