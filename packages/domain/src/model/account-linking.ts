import type { ProviderEmail } from "./provider-profile.ts";
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

export type AddressProofDecision =
  /** The account's email is confirmed, or the sign-in goes by no address: it signs in as it is. */
  | { readonly kind: "none_needed" }
  /** The provider verified the account's address: the account is confirmed now (a signup, for the log). */
  | { readonly kind: "confirm"; readonly takeOver: boolean }
  /**
   * The address is not proven: a confirmation mail goes to it when the account has one (`mail`), and the sign-in
   * waits for it unless MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS lets it in now (`signIn`).
   */
  | { readonly kind: "unproven"; readonly takeOver: boolean; readonly mail: boolean; readonly signIn: boolean };

/**
 * What a provider sign-in must prove of the account it reached (GoTrue's rule): a sign-in that goes by an address,
 * into an account whose email nobody has confirmed, takes the account over (`takeOver`: rid of its password, data
 * and other identities), unless a confirmed phone already proves the account its holder's (GoTrue looks at the
 * email only). The account is then confirmed when the provider verified its address, else its address must be.
 */
export function decideAddressProof(input: {
  /** The account, as the sign-in reached it. */
  readonly account: Pick<User, "email" | "emailConfirmedAt" | "phoneConfirmedAt">;
  /** The address the sign-in goes by, lower-cased (see decideAccount). */
  readonly candidate: string | null;
  /** EXTERNAL_<P>_EMAIL_OPTIONAL */
  readonly emailOptional: boolean;
  /** The addresses that prove who signed in (verifiedAddresses). */
  readonly verified: readonly string[];
  /** MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS */
  readonly allowUnverifiedSignIns: boolean;
}): AddressProofDecision {
  const { account } = input;
  const goesByEmail = !(input.emailOptional && input.candidate === null);
  if (!goesByEmail || account.emailConfirmedAt !== null) return { kind: "none_needed" };
  const takeOver = account.phoneConfirmedAt === null;
  if (account.email !== null && input.verified.includes(account.email)) return { kind: "confirm", takeOver };
  return { kind: "unproven", takeOver, mail: account.email !== null, signIn: input.allowUnverifiedSignIns };
}
