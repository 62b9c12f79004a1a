import type { AdminPrincipal, Deps, RequestContext } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import { normalizeEmail } from "../../model/email.ts";
import { assertMetadataFits, type Metadata } from "../../model/metadata.ts";
import { chooseRedirect } from "../../model/redirect.ts";
import { isEmailConfirmed, type User } from "../../model/user.ts";
import { newAccountForAdmin } from "../../services/accounts/new-account.ts";
import { recordAdminAudit } from "../../services/audit.ts";
import { assertEmailQuotaLeft } from "../../services/delivery/email-quota.ts";
import { sendSignInMail } from "../../services/delivery/sign-in-mail.ts";
import { afterUserCreated, beforeUserCreated } from "../../services/hooks/user-created.ts";

export interface InviteUserInput {
  readonly admin: AdminPrincipal;
  readonly email: string;
  readonly data?: Metadata | undefined;
  readonly audience?: string | undefined;
  readonly redirectTo?: readonly (string | undefined)[];
  readonly context: RequestContext;
}

/**
 * POST /invite: creates the account (without a password) and mails a link that confirms it and signs the invitee
 * in. An account awaiting confirmation is invited again; a confirmed one is refused.
 */
export async function inviteUser(deps: Deps, input: InviteUserInput): Promise<User> {
  const address = normalizeEmail(input.email);
  // The data is a new account's whole user_metadata (one awaiting confirmation keeps its own).
  if (input.data) assertMetadataFits("user_metadata", input.data);
  const redirectTo = chooseRedirect(input.redirectTo ?? [], deps.policy.redirect);
  const existing = await deps.stores.users.findByEmail(address);
  if (existing && isEmailConfirmed(existing)) throw new AuthError("email_exists", messages.emailExists);
  await assertEmailQuotaLeft(deps);

  let created = false;
  const invited = await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const current = existing ? await stores.users.findById(existing.id, { forUpdate: true }) : null;
    if (current && isEmailConfirmed(current)) throw new AuthError("email_exists", messages.emailExists);
    const contact = { provider: "email", address } as const;
    const base =
      current ?? newAccountForAdmin(deps, { contact, passwordHash: null, data: input.data, audience: input.audience });
    const invited: User = { ...base, invitedAt: now, confirmationSentAt: now, updatedAt: now };
    if (current) await stores.users.update(invited);
    else {
      await beforeUserCreated(deps, stores, { user: invited, context: input.context });
      await stores.users.insert(invited);
      created = true;
    }
    await sendSignInMail(deps, stores, { user: invited, kind: "invite", address, redirectTo });
    await recordAdminAudit(deps, stores, {
      action: "user_invited",
      admin: input.admin,
      target: invited,
      context: input.context,
    });
    return invited;
  });
  if (created) await afterUserCreated(deps, { user: invited, context: input.context });
  return invited;
}
