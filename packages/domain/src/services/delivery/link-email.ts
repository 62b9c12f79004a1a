import type { LinkEmail, LinkType } from "../../model/mail.ts";
import type { Metadata } from "../../model/metadata.ts";
import type { OneTimeTokenKind } from "../../model/one-time-token.ts";
import type { User } from "../../model/user.ts";
import type { IssuedToken } from "../tokens/issue-token.ts";

/** The tokens a mail carries as a link, the mail each goes in, and the type its link is verified as (GoTrue's). */
const LINK_MAILS = {
  confirmation: { kind: "confirmation", linkType: "signup" },
  invite: { kind: "invite", linkType: "invite" },
  magic_link: { kind: "magic_link", linkType: "magiclink" },
  recovery: { kind: "recovery", linkType: "recovery" },
  email_change_new: { kind: "email_change", linkType: "email_change" },
  email_change_current: { kind: "email_change", linkType: "email_change" },
} as const satisfies Partial<Record<OneTimeTokenKind, { kind: LinkEmail["kind"]; linkType: LinkType }>>;

export type LinkTokenKind = keyof typeof LINK_MAILS;

/**
 * The mail that carries an issued token's link and code to `to`: the one place a link mail is put together, for
 * the flows that send one and for the admin's generated links alike. `data` is the user_metadata templates see.
 */
export function linkEmail(request: {
  tokenKind: LinkTokenKind;
  user: User;
  to: string;
  issued: IssuedToken;
  redirectTo: string;
  data: Metadata;
}): LinkEmail {
  const { kind, linkType } = LINK_MAILS[request.tokenKind];
  const { user, issued } = request;
  const link = {
    to: request.to,
    linkType,
    linkToken: issued.linkToken!,
    otp: issued.otp,
    redirectTo: request.redirectTo,
    data: request.data,
  };
  if (kind === "email_change") return { ...link, kind, email: user.email ?? user.newEmail!, newEmail: user.newEmail! };
  // The table pairs each kind with its link type, which the union cannot see through a lookup.
  return { ...link, kind } as LinkEmail;
}
