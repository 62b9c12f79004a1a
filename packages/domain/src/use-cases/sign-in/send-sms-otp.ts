import type { Deps, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { Metadata } from "../../model/metadata.ts";
import { NO_CHOICES } from "../../model/one-time-token.ts";
import { normalizePhone } from "../../model/phone.ts";
import { isPhoneConfirmed, type User } from "../../model/user.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { assertNewAccountMetadataFits, newAccount } from "../../services/accounts/new-account.ts";
import { recordAudit } from "../../services/audit.ts";
import {
  limitSmsCodes,
  sendSmsCode,
  smsChannelOf,
  TEST_OTP_MESSAGE_ID,
  testOtpFor,
} from "../../services/delivery/sms-codes.ts";
import { afterUserCreated, beforeUserCreated } from "../../services/hooks/user-created.ts";
import { assertMayCreate } from "./send-magic-link.ts";
import { choicesOfSignInCode } from "./sign-in-code-choices.ts";

export interface SendSmsOtpInput {
  readonly phone: string;
  /** POST /otp's `create_user` (default true). */
  readonly createUser: boolean;
  readonly data?: Metadata | undefined;
  readonly audience?: string | undefined;
  /** `sms` (the default), or `whatsapp` through a provider that sends it. */
  readonly channel?: string | undefined;
  readonly context: RequestContext;
}

/**
 * POST /otp with a phone: texts a code that signs in, verified as type `sms`. An unknown number gets an account,
 * which the same code confirms; when none may be created, GoTrue's refusal (see sendMagicLink). Answers the message
 * id: `test-otp` for the numbers of SMS_TEST_OTP.
 */
export async function sendSmsOtp(deps: Deps, input: SendSmsOtpInput): Promise<{ messageId: string }> {
  await limitPerClient(deps, "otp", input.context);
  const { signup } = deps.policy;
  if (!signup.phoneEnabled) throw new AuthError("phone_provider_disabled", "Unsupported phone provider");
  const channel = smsChannelOf(deps, input.channel);
  const phone = normalizePhone(input.phone);
  // Whether or not the number has an account, so that the answer tells nothing.
  assertNewAccountMetadataFits({ provider: "phone", address: phone }, input.data);
  const existing = await deps.stores.users.findByPhone(phone);
  if (!existing) assertMayCreate(deps, input.createUser);
  await limitSmsCodes(deps, phone, "confirmation");
  let created: User | undefined;
  const messageId = await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const contact = { provider: "phone", address: phone } as const;
    // For a new account the data rides on the confirmation until the number is proven (see sign-up.ts).
    const user = existing
      ? await stores.users.findById(existing.id, { forUpdate: true })
      : newAccount(deps, { contact, passwordHash: null, audience: input.audience });
    // The account moved to another number (or went) since it was looked up: this number has none now.
    if (!user || user.phone !== phone)
      return testOtpFor(deps, phone) === null ? deps.random.uuid() : TEST_OTP_MESSAGE_ID;
    const pending = { ...user, confirmationSentAt: now, updatedAt: now };
    if (existing) await stores.users.update(pending);
    else {
      await beforeUserCreated(deps, stores, { user: pending, context: input.context });
      await stores.users.insert(pending);
      created = pending;
    }
    const action = existing ? "user_recovery_requested" : "user_confirmation_requested";
    await recordAudit(deps, stores, { action, actor: pending, context: input.context, traits: { channel } });
    const choices = !existing
      ? { ...NO_CHOICES, userMetadata: input.data ?? null }
      : isPhoneConfirmed(pending)
        ? NO_CHOICES
        : await choicesOfSignInCode(stores, pending, input.data);
    return sendSmsCode(deps, stores, { user: pending, kind: "confirmation", phone, sms: "otp", choices, channel });
  });
  // A number nobody had is an account now, waiting for its code.
  if (!existing) deps.events.record({ kind: "signed_up", provider: "phone" });
  if (created !== undefined) await afterUserCreated(deps, { user: created, context: input.context });
  return { messageId };
}
