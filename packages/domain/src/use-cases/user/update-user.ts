import type { Deps, LinkRequest, Principal, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { normalizeEmail } from "../../model/email.ts";
import { type Metadata, mergeWithinLimit } from "../../model/metadata.ts";
import { hasExpired, MAX_FAILED_ATTEMPTS } from "../../model/one-time-token.ts";
import { assertPasswordAcceptable } from "../../model/password-policy.ts";
import { normalizePhone } from "../../model/phone.ts";
import { readPkceChallenge } from "../../model/pkce.ts";
import { chooseRedirect } from "../../model/redirect.ts";
import { hasVerifiedFactor, type User, withEmailChangeRequested } from "../../model/user.ts";
import { forgetAccountPasswordFailures } from "../../services/abuse/password-failures.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { limitFrequency } from "../../services/abuse/send-frequency.ts";
import { recordAudit } from "../../services/audit.ts";
import { assertContactFree } from "../../services/contacts/contact-holders.ts";
import { sendEmailChange } from "../../services/contacts/email-change.ts";
import { applyPhoneChange, sendPhoneChange } from "../../services/contacts/phone-change.ts";
import { assertEmailQuotaLeft } from "../../services/delivery/email-quota.ts";
import { queueNotification } from "../../services/delivery/notifications.ts";
import { limitSmsCodes, smsChannelOf } from "../../services/delivery/sms-codes.ts";
import { otpDigest } from "../../services/tokens/digests.ts";

/** The link request is for the email change confirmations: where they lead, and the PKCE client they are for. */
export interface UpdateUserInput extends LinkRequest {
  readonly principal: Principal;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly password?: string | undefined;
  /** Merged into user_metadata; a key set to null is removed. */
  readonly data?: Metadata | undefined;
  /** How the code for a new phone is sent: `sms` (the default), or `whatsapp` through a provider that sends it. */
  readonly channel?: string | undefined;
  /** From GET /reauthenticate, when password changes require it. */
  readonly nonce?: string | undefined;
  readonly context: RequestContext;
}

/**
 * PUT /user. Metadata and password change at once; an email change waits for confirmation from the new address
 * (and the current one, see email-change.ts); a phone change is recorded as pending, unless SMS_AUTOCONFIRM
 * applies it at once.
 */
export async function updateUser(deps: Deps, input: UpdateUserInput): Promise<User> {
  await limitPerClient(deps, "user", input.context);
  const { user: caller, session } = input.principal;
  const email = input.email ? normalizeEmail(input.email) : undefined;
  const phone = input.phone ? normalizePhone(input.phone) : undefined;
  const password = input.password;
  if (password !== undefined) assertPasswordAcceptable(password, deps.policy.password);
  const pkce = readPkceChallenge(input.codeChallenge, input.codeChallengeMethod);
  // Checked again under the lock below; here, so that a refused request spends no nonce attempt or send.
  if (input.data) mergeWithinLimit("user_metadata", caller.userMetadata, input.data);
  if (caller.isAnonymous && password !== undefined && !email && !phone) {
    throw new AuthError(
      "validation_failed",
      "Updating password of an anonymous user without an email or phone is not allowed",
      {
        case: "password_without_address",
      },
    );
  }
  const changesEmail = email !== undefined && email !== caller.email;
  if (changesEmail) await assertContactFree(deps, { provider: "email", address: email }, caller.id);
  const changesPhone = phone !== undefined && phone !== caller.phone;
  // security: with a second factor verified, what signs the account in changes only from an aal2 session, as
  // GoTrue's PUT /user requires: a stolen password alone must not let its holder take the account over.
  if (
    (password !== undefined || changesEmail || changesPhone) &&
    hasVerifiedFactor(caller) &&
    session?.aal !== "aal2"
  ) {
    throw new AuthError(
      "insufficient_aal",
      "AAL2 session is required to update email or password when MFA is enabled.",
    );
  }
  const channel = changesPhone ? smsChannelOf(deps, input.channel) : "sms";
  if (changesPhone) {
    await assertContactFree(deps, { provider: "phone", address: phone }, caller.id);
  }

  let passwordHash: string | undefined;
  if (password !== undefined) {
    if (deps.policy.passwordChangeRequiresReauthentication) await assertNonceValid(deps, caller, input.nonce);
    if (caller.passwordHash !== null && (await deps.hasher.verify(caller.passwordHash, password)).ok) {
      throw new AuthError("same_password", "New password should be different from the old password.");
    }
    passwordHash = await deps.hasher.hash(password);
  }
  // Limited once the request is known to be acceptable: a refused one (a wrong nonce) spends no send.
  if (changesEmail) {
    const seconds = deps.policy.otp.emailConfirmationFrequencySeconds;
    // Keyed like /resend's, which knows the account only by its current address.
    await limitFrequency(deps, {
      purpose: "email_change",
      address: caller.email ?? caller.id,
      seconds,
      channel: "email",
    });
    await assertEmailQuotaLeft(deps);
  }
  if (changesPhone && !deps.policy.signup.phoneAutoconfirm) await limitSmsCodes(deps, phone, "phone_change");

  const updated = await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const current = await stores.users.findById(caller.id, { forUpdate: true });
    if (!current) throw new AuthError("user_not_found", "User not found", { case: "token_holder_gone" });
    let next: User = { ...current, updatedAt: now };
    if (input.data) next = { ...next, userMetadata: mergeWithinLimit("user_metadata", next.userMetadata, input.data) };
    if (changesEmail) next = withEmailChangeRequested(next, email, now);
    if (changesPhone) {
      next = deps.policy.signup.phoneAutoconfirm
        ? await applyPhoneChange(deps, stores, next, phone, now)
        : { ...next, newPhone: phone, phoneChangeSentAt: now };
    }
    const otherChanges =
      next.userMetadata !== current.userMetadata ||
      next.newEmail !== current.newEmail ||
      next.phone !== current.phone ||
      next.newPhone !== current.newPhone;
    const { notifications } = deps.policy.email;
    if (passwordHash !== undefined) {
      next = { ...next, passwordHash };
      // A new password ends every other session and voids every token issued before it.
      await stores.sessions.deleteAllOfUser(current.id, session ? { except: session.id } : {});
      await stores.oneTimeTokens.deleteAllOfUser(current.id);
      await recordAudit(deps, stores, { action: "user_updated_password", actor: next, context: input.context });
      if (notifications.password_changed && next.email !== null) {
        await queueNotification(deps, stores, { kind: "password_changed", to: next.email });
      }
    }
    if (otherChanges) await recordAudit(deps, stores, { action: "user_modified", actor: next, context: input.context });
    await stores.users.update(next);
    if (changesEmail) {
      await sendEmailChange(deps, stores, next, {
        redirectTo: chooseRedirect(input.redirectTo ?? [], deps.policy.redirect),
        pkce,
      });
    }
    if (changesPhone && !deps.policy.signup.phoneAutoconfirm) await sendPhoneChange(deps, stores, next, channel);
    return next;
  });
  // A new password, the end of a reset or a change, lifts any lock on the account's password sign-in.
  if (passwordHash !== undefined) await forgetAccountPasswordFailures(deps, updated);
  return updated;
}

/**
 * The nonce must be the one last sent, unexpired, with attempts left: each attempt spends one of its
 * MAX_FAILED_ATTEMPTS before the comparison, in one step, so a burst of guesses gets no more comparisons than that.
 */
async function assertNonceValid(deps: Deps, user: User, nonce: string | undefined): Promise<void> {
  if (!nonce) throw new AuthError("reauthentication_needed", "Password update requires reauthentication");
  const invalid = new AuthError("reauthentication_not_valid", "Nonce has expired or is invalid");
  const token = await deps.stores.oneTimeTokens.findByUser(user.id, "reauthentication");
  if (!token || hasExpired(token, deps.clock.now(), deps.policy.otp)) throw invalid;
  if (!(await deps.stores.oneTimeTokens.takeCodeAttempt(token.id, MAX_FAILED_ATTEMPTS))) throw invalid;
  if (!deps.secrets.equal(token.otpHash, otpDigest(deps.secrets, token.relatesTo, nonce))) throw invalid;
}
