import { AuthError } from "../errors.ts";
import { normalizeEmail } from "../model/email.ts";
import { readPkceChallenge } from "../model/pkce.ts";
import { chooseRedirect } from "../model/redirect.ts";
import { isEmailConfirmed } from "../model/user.ts";
import { recordAudit } from "./audit.ts";
import { sendConfirmation } from "./confirmation.ts";
import type { Deps, RequestContext } from "./deps.ts";
import { sendEmailChange } from "./email-change.ts";
import { consumeEmailQuota, emailChangeMailCount, limitFrequency } from "./one-time-tokens.ts";
import { observeDuration, padDuration } from "./timing.ts";

export interface ResendInput {
  readonly type: string;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly redirectTo?: readonly (string | undefined)[];
  readonly codeChallenge?: string | undefined;
  readonly codeChallengeMethod?: string | undefined;
  readonly context: RequestContext;
}

const TYPES = ["signup", "email_change", "sms", "phone_change"];

/**
 * POST /resend: the signup confirmation, or the confirmations of a pending email change, again. Answers a message
 * id in every case: when there is nothing to resend (no such account, already confirmed, no pending change), an id
 * of a message that does not exist, after as long as a real resend takes, so the answer reveals nothing.
 */
export async function resend(deps: Deps, input: ResendInput): Promise<{ messageId: string }> {
  if (!TYPES.includes(input.type)) {
    throw new AuthError("validation_failed", "Missing one of these types: signup, email_change, sms, phone_change");
  }
  const hasEmail = input.email !== undefined && input.email !== "";
  const hasPhone = input.phone !== undefined && input.phone !== "";
  if (hasEmail && hasPhone) throw new AuthError("validation_failed", "Only an email address or phone number should be provided.");
  if (input.type === "sms" || input.type === "phone_change") {
    // SMS delivery arrives with the phone flows; until then there is nothing to resend by SMS.
    throw new AuthError("phone_provider_disabled", "Phone logins are disabled");
  }
  if (!hasEmail) throw new AuthError("validation_failed", "Type provided requires an email address");
  if (!deps.policy.signup.emailEnabled) throw new AuthError("email_provider_disabled", "Email logins are disabled");
  const address = normalizeEmail(input.email!);
  const pkce = readPkceChallenge(input.codeChallenge, input.codeChallengeMethod);
  const redirectTo = chooseRedirect(input.redirectTo ?? [], deps.policy.redirect);
  const operation = `resend:${input.type}`;
  const started = deps.clock.now();
  const seconds = deps.policy.otp.emailConfirmationFrequencySeconds;
  // The same limits as the signup or email change being repeated, counted before looking the address up.
  const purpose = input.type === "signup" ? "confirmation" : "email_change";
  await limitFrequency(deps, { purpose, address, seconds, channel: "email" });
  await consumeEmailQuota(deps, input.type === "signup" ? 1 : emailChangeMailCount(deps));

  const user = await deps.stores.users.findByEmail(address);
  const nothingToSend = !user || (input.type === "signup" ? isEmailConfirmed(user) : user.newEmail === null);
  if (nothingToSend) {
    await padDuration(deps, operation, started);
    return { messageId: deps.random.uuid() };
  }
  const messageId = await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const current = (await stores.users.findById(user.id, { forUpdate: true })) ?? user;
    if (input.type === "signup") {
      const pending = { ...current, confirmationSentAt: now, updatedAt: now };
      await stores.users.update(pending);
      await recordAudit(deps, stores, { action: "user_confirmation_requested", actor: pending, context: input.context });
      // The new mail carries the password of the signup it repeats: asking again chooses nothing.
      const passwordHash = (await stores.oneTimeTokens.findByUser(user.id, "confirmation"))?.passwordHash ?? null;
      return sendConfirmation(deps, stores, pending, { provider: "email", address }, { redirectTo, pkce, passwordHash });
    }
    const pending = { ...current, emailChangeSentAt: now, updatedAt: now };
    await stores.users.update(pending);
    return sendEmailChange(deps, stores, pending, { redirectTo, pkce });
  });
  observeDuration(deps, operation, started);
  return { messageId };
}
