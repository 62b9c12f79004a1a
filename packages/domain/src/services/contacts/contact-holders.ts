import type { Deps } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import type { Contact } from "../../model/contact.ts";
import { isEmailConfirmed, isPhoneConfirmed, type User } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";

const taken = (contact: Contact) =>
  contact.provider === "email"
    ? new AuthError("email_exists", messages.emailExists)
    : new AuthError("phone_exists", messages.phoneExists);

function holds(user: User, contact: Contact): boolean {
  return contact.provider === "email" ? isEmailConfirmed(user) : isPhoneConfirmed(user);
}

/** The user that has this address, confirmed or not. */
export function findUserByContact(stores: Stores, contact: Contact): Promise<User | null> {
  return contact.provider === "email"
    ? stores.users.findByEmail(contact.address)
    : stores.users.findByPhone(contact.address);
}

/**
 * Refuses to move an account to an address another account has proven. security: an address another account
 * merely claimed, never proving it (a signup someone left unconfirmed, perhaps to squat it), does not stop its
 * owner: see takeContact.
 */
export async function assertContactFree(deps: Deps, contact: Contact, takerId: string): Promise<void> {
  const holder = await findUserByContact(deps.stores, contact);
  if (holder && holder.id !== takerId && holds(holder, contact)) throw taken(contact);
}

/**
 * Frees the address for the account that has just proven it, in the caller's transaction: an account that claimed
 * it without proving it loses it, with whatever was pending for it; one that proved it meanwhile keeps it.
 */
export async function takeContact(deps: Deps, stores: Stores, contact: Contact, takerId: string): Promise<void> {
  const found = await findUserByContact(stores, contact);
  if (!found || found.id === takerId) return;
  const holder = (await stores.users.findById(found.id, { forUpdate: true })) ?? found;
  if (holds(holder, contact)) throw taken(contact);
  const now = deps.clock.now();
  const released: User =
    contact.provider === "email"
      ? { ...holder, email: null, updatedAt: now }
      : { ...holder, phone: null, updatedAt: now };
  await stores.users.update(released);
  await stores.oneTimeTokens.deleteAllOfUser(holder.id);
}
