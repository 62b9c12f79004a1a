import type { Deps, LinkRequest, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { normalizeEmail } from "../../model/email.ts";
import { readPkceChallenge } from "../../model/pkce.ts";
import { chooseRedirect } from "../../model/redirect.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { limitFrequency } from "../../services/abuse/send-frequency.ts";
import { observeDuration, padDuration } from "../../services/abuse/timing.ts";
import { recordAudit } from "../../services/audit.ts";
import { assertEmailQuotaLeft } from "../../services/delivery/email-quota.ts";
import { sendSignInMail } from "../../services/delivery/sign-in-mail.ts";

export interface RecoverPasswordInput extends LinkRequest {
  readonly email: string;
  readonly context: RequestContext;
}

/**
 * POST /recover: mails a link that signs the person in so they can set a new password. The answer for an unknown
 * address is the same, as slow, and limited as often: nothing tells whether an account exists.
 */
export async function recoverPassword(deps: Deps, input: RecoverPasswordInput): Promise<void> {
  await limitPerClient(deps, "recover", input.context);
  if (!deps.policy.signup.emailEnabled) throw new AuthError("email_provider_disabled", "Email logins are disabled");
  if (input.email === "") throw new AuthError("validation_failed", "Password recovery requires an email");
  const address = normalizeEmail(input.email);
  const pkce = readPkceChallenge(input.codeChallenge, input.codeChallengeMethod);
  const redirectTo = chooseRedirect(input.redirectTo ?? [], deps.policy.redirect);
  const started = deps.clock.now();
  // Shared with magic links, as GoTrue's recovery_sent_at is: one sign-in mail a minute, however asked for.
  await limitFrequency(deps, {
    purpose: "sign_in_mail",
    address,
    seconds: deps.policy.otp.linkFrequencySeconds,
    channel: "email",
  });
  await assertEmailQuotaLeft(deps);

  const existing = await deps.stores.users.findByEmail(address);
  if (!existing) {
    await padDuration(deps, "recovery", started);
    return;
  }
  await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const user = (await stores.users.findById(existing.id, { forUpdate: true })) ?? existing;
    await stores.users.update({ ...user, recoverySentAt: now, updatedAt: now });
    await sendSignInMail(deps, stores, { user, kind: "recovery", address, redirectTo, pkce });
    await recordAudit(deps, stores, { action: "user_recovery_requested", actor: user, context: input.context });
  });
  observeDuration(deps, "recovery", started);
}
