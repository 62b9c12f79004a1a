import type { Deps } from "../../deps.ts";
import type { SmsChannel } from "../../model/sms.ts";
import { confirmPhone, type User, withContactIdentity } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { queueNotification } from "../delivery/notifications.ts";
import { sendSmsCode } from "../delivery/sms-codes.ts";
import { takeContact } from "./contact-holders.ts";

/**
 * Texts the code that confirms the user's pending new number (`newPhone`), in the caller's transaction, which the
 * caller has limited with limitSmsCodes, by `channel` (a resent code goes by SMS, as GoTrue's /resend sends it).
 * Returns the message id.
 */
export function sendPhoneChange(deps: Deps, stores: Stores, user: User, channel: SmsChannel = "sms"): Promise<string> {
  if (user.newPhone === null) throw new Error("no pending phone change");
  const phone = user.newPhone;
  return sendSmsCode(deps, stores, { user, kind: "phone_change", phone, sms: "phone_change", channel });
}

/**
 * The new number becomes the user's, confirmed, and its identity follows; written here with the identity, and
 * the owner told by mail when MAILER_NOTIFICATIONS_PHONE_CHANGED_ENABLED. The caller writes the user it returns.
 */
export async function applyPhoneChange(
  deps: Deps,
  stores: Stores,
  user: User,
  { phone, now }: { phone: string; now: Date },
): Promise<User> {
  await takeContact(deps, stores, { provider: "phone", address: phone }, user.id);
  await dropOtherClaims(stores, phone, user.id);
  // An anonymous user with a proven number is anonymous no longer: it can sign in again by that number.
  const moved = { ...user, phone, newPhone: null, isAnonymous: false };
  const changed = confirmPhone(withContactIdentity(moved, "phone", deps.random.uuid(), now), now);
  for (const identity of changed.identities.filter((candidate) => candidate.provider === "phone")) {
    await stores.identities.save(identity);
  }
  if (changed.email !== null && deps.policy.email.notifications.phone_changed) {
    // An empty old number tells the mail a number was added, as GoTrue's template variable is then empty.
    const notification = { kind: "phone_changed", to: changed.email, phone, oldPhone: user.phone ?? "" } as const;
    await queueNotification(deps, stores, notification, user.id);
  }
  return changed;
}

/** Other accounts waiting to move to the number will not get it: their pending changes and codes go. */
async function dropOtherClaims(stores: Stores, phone: string, ownerId: string): Promise<void> {
  for (const token of await stores.oneTimeTokens.findByAddress(phone, ["phone_change"])) {
    if (token.userId === ownerId) continue;
    await stores.oneTimeTokens.delete(token.id);
    const other = await stores.users.findById(token.userId, { forUpdate: true });
    if (other?.newPhone === phone) await stores.users.update({ ...other, newPhone: null });
  }
}
