import type { Deps, LinkRequest, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { Contact } from "../../model/contact.ts";
import { normalizeEmail } from "../../model/email.ts";
import { NO_CHOICES } from "../../model/one-time-token.ts";
import { normalizePhone } from "../../model/phone.ts";
import { type PkceChallenge, readPkceChallenge } from "../../model/pkce.ts";
import { chooseRedirect } from "../../model/redirect.ts";
import { isEmailConfirmed, isPhoneConfirmed, type User } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { limitFrequency } from "../../services/abuse/send-frequency.ts";
import { observeDuration, padDuration } from "../../services/abuse/timing.ts";
import { recordAudit } from "../../services/audit.ts";
import { sendEmailChange } from "../../services/contacts/email-change.ts";
import { sendPhoneChange } from "../../services/contacts/phone-change.ts";
import { sendConfirmation } from "../../services/delivery/confirmation.ts";
import { assertEmailQuotaLeft } from "../../services/delivery/email-quota.ts";
import { limitSmsCodes, TEST_OTP_MESSAGE_ID, testOtpFor } from "../../services/delivery/sms-codes.ts";

export interface ResendInput extends LinkRequest {
  readonly type: string;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly context: RequestContext;
}

const TYPES = ["signup", "email_change", "sms", "phone_change"];

/**
 * POST /resend: the signup confirmation (by mail or SMS), or the confirmations of a pending email or phone change,
 * again. Answers a message id in every case: when there is nothing to resend (no such account, already confirmed,
 * no pending change), an id of a message that does not exist, after as long as a real resend takes, so the answer
 * reveals nothing.
 */
export async function resend(deps: Deps, input: ResendInput): Promise<{ messageId: string }> {
  await limitPerClient(deps, "resend", input.context);
  if (!TYPES.includes(input.type)) {
    throw new AuthError("validation_failed", "Missing one of these types: signup, email_change, sms, phone_change");
  }
  const hasEmail = input.email !== undefined && input.email !== "";
  const hasPhone = input.phone !== undefined && input.phone !== "";
  if (hasEmail && hasPhone)
    throw new AuthError("validation_failed", "Only an email address or phone number should be provided.");
  if (input.type === "sms" || input.type === "phone_change") {
    if (!hasPhone) throw new AuthError("validation_failed", "Type provided requires a phone number");
    if (!deps.policy.signup.phoneEnabled) throw new AuthError("phone_provider_disabled", "Phone logins are disabled");
    return resendBySms(deps, input.type, normalizePhone(input.phone!), input.context);
  }
  if (!hasEmail) throw new AuthError("validation_failed", "Type provided requires an email address");
  if (!deps.policy.signup.emailEnabled) throw new AuthError("email_provider_disabled", "Email logins are disabled");
  const address = normalizeEmail(input.email!);
  const pkce = readPkceChallenge(input.codeChallenge, input.codeChallengeMethod);
  const redirectTo = chooseRedirect(input.redirectTo ?? [], deps.policy.redirect);
  const operation = input.type === "signup" ? "resend:signup" : "resend:email_change";
  const started = deps.clock.now();
  const seconds = deps.policy.otp.emailConfirmationFrequencySeconds;
  // The same limits as the signup or email change being repeated, counted before looking the address up.
  const purpose = input.type === "signup" ? "confirmation" : "email_change";
  await limitFrequency(deps, { purpose, address, seconds, channel: "email" });
  await assertEmailQuotaLeft(deps);

  const user = await deps.stores.users.findByEmail(address);
  const nothingToSend = !user || (input.type === "signup" ? isEmailConfirmed(user) : user.newEmail === null);
  if (nothingToSend) {
    await padDuration(deps, operation, started);
    return { messageId: deps.random.uuid() };
  }
  const messageId = await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const current = (await stores.users.findById(user.id, { forUpdate: true })) ?? user;
    if (input.type === "signup")
      return confirmAgain(deps, stores, current, {
        contact: { provider: "email", address },
        context: input.context,
        redirectTo,
        pkce,
      });
    const pending = { ...current, emailChangeSentAt: now, updatedAt: now };
    await stores.users.update(pending);
    return sendEmailChange(deps, stores, pending, { redirectTo, pkce });
  });
  observeDuration(deps, operation, started);
  return { messageId };
}

/** `sms`: an unconfirmed number's confirmation code again; `phone_change`: the code for a pending new number. */
async function resendBySms(
  deps: Deps,
  type: "sms" | "phone_change",
  phone: string,
  context: RequestContext,
): Promise<{ messageId: string }> {
  const operation = type === "sms" ? "resend:sms" : "resend:phone_change";
  const started = deps.clock.now();
  await limitSmsCodes(deps, phone, type === "sms" ? "confirmation" : "phone_change");

  const user = type === "sms" ? await deps.stores.users.findByPhone(phone) : await changingTo(deps, phone);
  if (!user || (type === "sms" && isPhoneConfirmed(user))) {
    await padDuration(deps, operation, started);
    return { messageId: testOtpFor(deps, phone) === null ? deps.random.uuid() : TEST_OTP_MESSAGE_ID };
  }
  const messageId = await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const current = (await stores.users.findById(user.id, { forUpdate: true })) ?? user;
    if (type === "sms") {
      // Confirmed or moved to another number meanwhile: nothing to resend.
      if (current.phone !== phone || isPhoneConfirmed(current)) return deps.random.uuid();
      return confirmAgain(deps, stores, current, {
        contact: { provider: "phone", address: phone },
        context,
        redirectTo: "",
      });
    }
    // The change may have completed or moved on meanwhile.
    if (current.newPhone !== phone) return deps.random.uuid();
    const pending = { ...current, phoneChangeSentAt: now, updatedAt: now };
    await stores.users.update(pending);
    return sendPhoneChange(deps, stores, pending);
  });
  observeDuration(deps, operation, started);
  return { messageId };
}

/** The user whose pending phone change is to this number: the latest to ask, if several did. */
async function changingTo(deps: Deps, phone: string): Promise<User | null> {
  const pending = await deps.stores.oneTimeTokens.findByAddress(phone, ["phone_change"]);
  const latest = pending.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
  const user = latest ? await deps.stores.users.findById(latest.userId) : null;
  return user?.newPhone === phone ? user : null;
}

/** A confirmation asked for again: to which address, for which request, and where its link leads. */
interface ConfirmationAgain {
  readonly contact: Contact;
  readonly context: RequestContext;
  readonly redirectTo: string;
  readonly pkce?: PkceChallenge | null;
}

/** Sends a pending signup its confirmation again, carrying the password of the signup it repeats. */
async function confirmAgain(deps: Deps, stores: Stores, user: User, request: ConfirmationAgain): Promise<string> {
  const { context, ...delivery } = request;
  const now = deps.clock.now();
  const pending = { ...user, confirmationSentAt: now, updatedAt: now };
  await stores.users.update(pending);
  await recordAudit(deps, stores, { action: "user_confirmation_requested", actor: pending, context });
  // Asking again chooses nothing: the choices are those the pending confirmation carries.
  const carried = await stores.oneTimeTokens.findByUser(user.id, "confirmation");
  const choices = carried
    ? { passwordHash: carried.passwordHash, userMetadata: carried.userMetadata, identityId: carried.identityId }
    : NO_CHOICES;
  return sendConfirmation(deps, stores, pending, { ...delivery, choices });
}
