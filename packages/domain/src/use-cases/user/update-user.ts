import type { Deps, LinkRequest, Principal, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { normalizeEmail } from "../../model/email.ts";
import { type Metadata, mergeWithinLimit } from "../../model/metadata.ts";
import { hasExpired, MAX_FAILED_ATTEMPTS } from "../../model/one-time-token.ts";
import { normalizePhone } from "../../model/phone.ts";
import { readPkceChallenge } from "../../model/pkce.ts";
import { chooseRedirect } from "../../model/redirect.ts";
import { type User, withEmailChangeRequested } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import {
  forgetAccountPasswordFailures,
  refundPasswordAttempt,
  takePasswordAttempt,
} from "../../services/abuse/password-failures.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { limitFrequency } from "../../services/abuse/send-frequency.ts";
import { assertPasswordStrong } from "../../services/accounts/password-strength.ts";
import { recordAudit } from "../../services/audit.ts";
import { assertContactFree } from "../../services/contacts/contact-holders.ts";
import { sendEmailChange } from "../../services/contacts/email-change.ts";
import { applyPhoneChange, sendPhoneChange } from "../../services/contacts/phone-change.ts";
import { assertEmailQuotaLeft } from "../../services/delivery/email-quota.ts";
import { queueNotification } from "../../services/delivery/notifications.ts";
import { limitSmsCodes, smsChannelOf } from "../../services/delivery/sms-codes.ts";
import { otpDigest } from "../../services/tokens/digests.ts";
import { decideUserUpdate, type UserUpdateDecision } from "./user-update.ts";

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
  /** The password the user has now, when SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD asks for it. */
  readonly currentPassword?: string | undefined;
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
  const { email, phone, pkce } = await readUpdateRequest(deps, input);
  if (caller.isSsoUser) assertNotSsoManaged(caller, { ...input, email, phone });
  const decision = decideUserUpdate({
    caller,
    aal: session?.aal ?? null,
    email,
    phone,
    password: input.password !== undefined,
    phoneAutoconfirm: deps.policy.signup.phoneAutoconfirm,
  });
  if (decision.kind === "refuse_password_without_address") {
    throw new AuthError(
      "validation_failed",
      "Updating password of an anonymous user without an email or phone is not allowed",
      { case: "password_without_address" },
    );
  }
  if (decision.email !== null) await assertContactFree(deps, { provider: "email", address: decision.email }, caller.id);
  if (decision.lacksAal2) {
    throw new AuthError(
      "insufficient_aal",
      "AAL2 session is required to update email or password when MFA is enabled.",
    );
  }
  const channel = decision.phone !== null ? smsChannelOf(deps, input.channel) : "sms";
  if (decision.phone !== null) {
    await assertContactFree(deps, { provider: "phone", address: decision.phone }, caller.id);
  }
  const passwordHash = input.password === undefined ? undefined : await newPasswordHash(deps, caller, input);
  await limitSends(deps, caller, decision);

  const update: Update = { input, decision, passwordHash, pkce, channel };
  const updated = await deps.tx.run((stores) => writeUpdate(deps, stores, update));
  // A new password, the end of a reset or a change, lifts any lock on the account's password sign-in.
  if (passwordHash !== undefined) await forgetAccountPasswordFailures(deps, updated);
  return updated;
}

/** GoTrue's rule: an SSO user's address, phone and (absent) password are its identity provider's to change. */
function assertNotSsoManaged(
  caller: User,
  request: Pick<UpdateUserInput, "email" | "phone" | "password" | "nonce">,
): void {
  const changes =
    (request.password !== undefined && request.password !== "") ||
    (request.email !== undefined && request.email !== caller.email) ||
    (request.phone !== undefined && request.phone !== caller.phone) ||
    (request.nonce !== undefined && request.nonce !== "");
  if (changes) {
    throw new AuthError("user_sso_managed", "Updating email, phone, password of a SSO account only possible via SSO");
  }
}

/** The request's addresses normalized and its values checked, before anything is spent on it. */
async function readUpdateRequest(deps: Deps, input: UpdateUserInput) {
  const email = input.email ? normalizeEmail(input.email) : undefined;
  const phone = input.phone ? normalizePhone(input.phone) : undefined;
  if (input.password !== undefined) await assertPasswordStrong(deps, input.password);
  const pkce = readPkceChallenge(input.codeChallenge, input.codeChallengeMethod);
  // Checked again under the lock; here, so that a refused request spends no nonce attempt or send.
  if (input.data) mergeWithinLimit("user_metadata", input.principal.user.userMetadata, input.data);
  return { email, phone, pkce };
}

/**
 * The hash of the new password, once the nonce and the current password (when required) are valid and the password
 * is new.
 */
async function newPasswordHash(deps: Deps, caller: User, input: UpdateUserInput): Promise<string> {
  const password = input.password!;
  if (deps.policy.passwordChangeRequiresReauthentication) await assertNonceValid(deps, caller, input.nonce);
  if (deps.policy.passwordChangeRequiresCurrentPassword) await assertCurrentPassword(deps, caller, input);
  if (caller.passwordHash !== null && (await deps.hasher.verify(caller.passwordHash, password)).ok) {
    throw new AuthError("same_password", "New password should be different from the old password.");
  }
  return deps.hasher.hash(password);
}

/**
 * GoTrue's rule: a user who has a password gives it to set another, unless the session came from a recovery link, a
 * magic link or a code (the recovery flow: whoever forgot it signs in that way to set a new one). No session (a
 * service key naming the user) is no recovery. A wrong one counts against the account like a failed sign-in.
 */
async function assertCurrentPassword(deps: Deps, caller: User, input: UpdateUserInput): Promise<void> {
  if (caller.passwordHash === null || input.password === "") return;
  const session = input.principal.session;
  if (session?.amr.some((entry) => RECOVERY_METHODS.has(entry.method))) return;
  if (!input.currentPassword) {
    throw new AuthError("current_password_required", "Current password required when setting new password.");
  }
  // security: a stolen session must not guess the password here faster than at sign-in.
  const address =
    caller.email !== null ? { email: caller.email } : caller.phone !== null ? { phone: caller.phone } : null;
  const attempt = address === null ? null : await takePasswordAttempt(deps, address);
  if (!(await deps.hasher.verify(caller.passwordHash, input.currentPassword)).ok) {
    throw new AuthError("current_password_invalid", "Current password required when setting new password.");
  }
  if (attempt !== null) await refundPasswordAttempt(deps, attempt);
}

/** GoTrue's recovery methods (its AuthenticationMethod.IsRecovery). */
const RECOVERY_METHODS: ReadonlySet<string> = new Set(["otp", "magiclink", "recovery"]);

/** Limited once the request is known to be acceptable: a refused one (a wrong nonce) spends no send. */
async function limitSends(deps: Deps, caller: User, decision: UpdateDecision): Promise<void> {
  if (decision.email !== null) {
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
  if (decision.sendsPhoneCode) await limitSmsCodes(deps, decision.phone!, "phone_change");
}

type UpdateDecision = Extract<UserUpdateDecision, { kind: "update" }>;

/** What the transaction carries out. */
interface Update {
  readonly input: UpdateUserInput;
  readonly decision: UpdateDecision;
  readonly passwordHash: string | undefined;
  readonly pkce: ReturnType<typeof readPkceChallenge>;
  readonly channel: ReturnType<typeof smsChannelOf>;
}

/** The update, on the account as it is under the lock, with its log entries and the mails it asks for. */
async function writeUpdate(deps: Deps, stores: Stores, update: Update): Promise<User> {
  const { input, decision, passwordHash } = update;
  const now = deps.clock.now();
  const current = await stores.users.findById(input.principal.user.id, { forUpdate: true });
  if (!current) throw new AuthError("user_not_found", "User not found", { case: "token_holder_gone" });
  let next: User = { ...current, updatedAt: now };
  if (input.data) next = { ...next, userMetadata: mergeWithinLimit("user_metadata", next.userMetadata, input.data) };
  if (decision.email !== null) next = withEmailChangeRequested(next, decision.email, now);
  if (decision.phone !== null) {
    next = decision.sendsPhoneCode
      ? { ...next, newPhone: decision.phone, phoneChangeSentAt: now }
      : await applyPhoneChange(deps, stores, next, { phone: decision.phone, now });
  }
  const otherChanges =
    next.userMetadata !== current.userMetadata ||
    next.newEmail !== current.newEmail ||
    next.phone !== current.phone ||
    next.newPhone !== current.newPhone;
  if (passwordHash !== undefined) {
    next = { ...next, passwordHash };
    await endOtherSessions(deps, stores, next, input);
  }
  if (otherChanges) await recordAudit(deps, stores, { action: "user_modified", actor: next, context: input.context });
  await stores.users.update(next);
  if (decision.email !== null) {
    await sendEmailChange(deps, stores, next, {
      redirectTo: chooseRedirect(input.redirectTo ?? [], deps.policy.redirect),
      pkce: update.pkce,
    });
  }
  if (decision.sendsPhoneCode) await sendPhoneChange(deps, stores, next, update.channel);
  return next;
}

/** A new password ends every other session and voids every token issued before it; the owner may be told. */
async function endOtherSessions(deps: Deps, stores: Stores, user: User, input: UpdateUserInput): Promise<void> {
  const { session } = input.principal;
  await stores.sessions.deleteAllOfUser(user.id, session ? { except: session.id } : {});
  await stores.oneTimeTokens.deleteAllOfUser(user.id);
  await recordAudit(deps, stores, { action: "user_updated_password", actor: user, context: input.context });
  if (deps.policy.email.notifications.password_changed && user.email !== null) {
    await queueNotification(deps, stores, { kind: "password_changed", to: user.email }, user.id);
  }
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
