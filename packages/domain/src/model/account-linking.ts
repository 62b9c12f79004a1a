import type { ProviderEmail } from "../ports/oauth-provider.ts";
import type { User } from "./user.ts";

/** The address a provider sign-in goes by: the first one marked primary, else the last one (GoTrue's choice). */
export function chooseProviderEmail(emails: readonly ProviderEmail[]): ProviderEmail | null {
  return emails.find((email) => email.primary) ?? emails.at(-1) ?? null;
}

/**
 * The addresses that prove who signed in: those the provider verified, or all of them when email sign-ups need no
 * confirmation (MAILER_AUTOCONFIRM), lower-cased.
 */
export function verifiedAddresses(emails: readonly ProviderEmail[], autoconfirm: boolean): string[] {
  return [...new Set(emails.filter((email) => autoconfirm || email.verified).map((e) => e.address.toLowerCase()))];
}

export type AccountDecision =
  /** The identity exists: its user signs in. */
  | { readonly kind: "sign_in"; readonly user: User }
  /** One account holds a verified address of the sign-in: the identity joins it. */
  | { readonly kind: "link"; readonly user: User }
  /** Nobody holds it: a new account, with the address unless someone else already has it. */
  | { readonly kind: "create"; readonly email: string | null }
  /** Several accounts hold the sign-in's verified addresses: which one is meant cannot be told. */
  | { readonly kind: "multiple_accounts" };

/**
 * Who a provider sign-in is (GoTrue's DetermineAccountLinking): the owner of its identity; else, by a verified
 * address, the one account that holds it (as its email or an identity's); else a new account. Automatic linking
 * needs the provider to have verified the address, so an unverified claim of someone's address links nothing.
 */
export function decideAccount(input: {
  /** The user of the identity (provider, subject), if it exists. */
  readonly identityOwner: User | null;
  /** The address the sign-in goes by, lower-cased. */
  readonly candidate: string | null;
  readonly verified: readonly string[];
  /** The users (not deleted) holding one of the verified addresses, as their email or through an identity. */
  readonly holders: readonly User[];
  /** Whether some user already has the candidate address as their email. */
  readonly candidateTaken: boolean;
}): AccountDecision {
  if (input.identityOwner) return { kind: "sign_in", user: input.identityOwner };
  if (input.verified.length === 0) {
    return { kind: "create", email: input.candidate !== null && !input.candidateTaken ? input.candidate : null };
  }
  const holders = [...new Map(input.holders.map((user) => [user.id, user])).values()];
  if (holders.length === 1) return { kind: "link", user: holders[0]! };
  if (holders.length > 1) return { kind: "multiple_accounts" };
  return { kind: "create", email: input.candidate !== null && !input.candidateTaken ? input.candidate : null };
}
