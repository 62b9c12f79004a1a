import type { AdminPrincipal, Deps, RequestContext } from "../../deps.ts";
import { bannedUntil, parseBanDuration } from "../../model/ban.ts";
import { normalizeEmail } from "../../model/email.ts";
import { type Metadata, mergeWithinLimit } from "../../model/metadata.ts";
import { normalizePhone } from "../../model/phone.ts";
import {
  confirmEmail,
  confirmPhone,
  isEmailConfirmed,
  isPhoneConfirmed,
  type User,
  withContactIdentity,
  withoutEmailChange,
} from "../../model/user.ts";
import { forgetAccountPasswordFailures } from "../../services/abuse/password-failures.ts";
import { findUserOrFail } from "../../services/accounts/find-user.ts";
import { assertPasswordStrong } from "../../services/accounts/password-strength.ts";
import { recordAdminAudit } from "../../services/audit.ts";

export interface AdminUpdateUserInput {
  readonly admin: AdminPrincipal;
  readonly userId: string;
  readonly role?: string | undefined;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly password?: string | undefined;
  /** True confirms the address; false leaves it as it is (GoTrue's reading). */
  readonly emailConfirm?: boolean | undefined;
  readonly phoneConfirm?: boolean | undefined;
  /** Merged in; a key set to null is removed. */
  readonly userMetadata?: Metadata | undefined;
  readonly appMetadata?: Metadata | undefined;
  /** A Go duration to ban for, or `none` to lift a ban. */
  readonly banDuration?: string | undefined;
  readonly context: RequestContext;
}

/**
 * PUT /admin/users/<id>: the admin's word is the proof, so a new email or phone takes effect at once (keeping the
 * user's confirmation state, as GoTrue does), with no mail. A new password or a ban ends every session, so no
 * token issued before it works any more.
 */
export async function adminUpdateUser(deps: Deps, input: AdminUpdateUserInput): Promise<User> {
  const email = input.email ? normalizeEmail(input.email) : undefined;
  const phone = input.phone ? normalizePhone(input.phone) : undefined;
  if (input.password !== undefined) await assertPasswordStrong(deps, input.password);
  const ban = input.banDuration === undefined ? undefined : parseBanDuration(input.banDuration);
  await findUserOrFail(deps.stores, input.userId);
  const passwordHash = input.password === undefined ? undefined : await deps.hasher.hash(input.password);

  const updated = await deps.tx.run(async (stores) => {
    const current = await findUserOrFail(stores, input.userId, { forUpdate: true });
    const now = deps.clock.now();
    let next: User = { ...current, updatedAt: now };
    if (input.role) next = { ...next, role: input.role };
    if (email !== undefined && email !== current.email) {
      next = withContactIdentity(
        { ...withoutEmailChange(next), email, emailChangeSentAt: null },
        "email",
        deps.random.uuid(),
        now,
      );
    }
    if (phone !== undefined && phone !== current.phone) {
      next = withContactIdentity(
        { ...next, phone, newPhone: null, phoneChangeSentAt: null },
        "phone",
        deps.random.uuid(),
        now,
      );
    }
    if (input.emailConfirm && next.email !== null && !isEmailConfirmed(next)) next = confirmEmail(next, now);
    if (input.phoneConfirm && next.phone !== null && !isPhoneConfirmed(next)) next = confirmPhone(next, now);
    if (input.userMetadata) {
      next = { ...next, userMetadata: mergeWithinLimit("user_metadata", next.userMetadata, input.userMetadata) };
    }
    if (input.appMetadata) {
      next = { ...next, appMetadata: mergeWithinLimit("app_metadata", next.appMetadata, input.appMetadata) };
    }
    if (passwordHash !== undefined) next = { ...next, passwordHash };
    if (ban !== undefined) next = { ...next, bannedUntil: bannedUntil(ban, now) };

    // A unique index decides whether another user holds the address: email_exists / phone_exists.
    await stores.users.update(next);
    for (const identity of next.identities) {
      if (!current.identities.includes(identity)) await stores.identities.save(identity);
    }
    const addressChanged = next.email !== current.email || next.phone !== current.phone;
    // Tokens sent to an address the user no longer has, or issued before a new password, must not work.
    if (addressChanged || passwordHash !== undefined) await stores.oneTimeTokens.deleteAllOfUser(current.id);
    if (passwordHash !== undefined) await stores.sessions.deleteAllOfUser(current.id);
    // A ban ends the sessions rather than deleting them, so their tokens are answered `user_banned` while it lasts,
    // and stay dead after it is lifted.
    else if (ban?.kind === "ban" && ban.milliseconds > 0) await stores.sessions.endAllOfUser(current.id, now);
    const traits = ban === undefined ? {} : { banned_until: next.bannedUntil?.toISOString() ?? null };
    await recordAdminAudit(deps, stores, {
      action: "user_modified",
      admin: input.admin,
      target: next,
      context: input.context,
      traits,
    });
    return next;
  });
  // A new password, the end of a reset or a change, lifts any lock on the account's password sign-in.
  if (passwordHash !== undefined) await forgetAccountPasswordFailures(deps, updated);
  return updated;
}
