import type { Deps, LinkRequest, RequestContext } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import { normalizeEmail } from "../../model/email.ts";
import type { Metadata } from "../../model/metadata.ts";
import { NO_CHOICES } from "../../model/one-time-token.ts";
import { readPkceChallenge } from "../../model/pkce.ts";
import { chooseRedirect } from "../../model/redirect.ts";
import { isEmailConfirmed, type User } from "../../model/user.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { limitFrequency } from "../../services/abuse/send-frequency.ts";
import { assertNewAccountMetadataFits, newAccount } from "../../services/accounts/new-account.ts";
import { recordAudit } from "../../services/audit.ts";
import { sendConfirmation } from "../../services/delivery/confirmation.ts";
import { assertEmailQuotaLeft } from "../../services/delivery/email-quota.ts";
import { sendSignInMail } from "../../services/delivery/sign-in-mail.ts";
import { afterUserCreated, beforeUserCreated } from "../../services/hooks/user-created.ts";
import { choicesOfSignInCode } from "./sign-in-code-choices.ts";

export interface SendMagicLinkInput extends LinkRequest {
  readonly email: string;
  /** POST /otp's `create_user` (default true); /magiclink always creates. */
  readonly createUser: boolean;
  readonly data?: Metadata | undefined;
  readonly audience?: string | undefined;
  readonly context: RequestContext;
}

/**
 * POST /magiclink and POST /otp with an email: a mail whose link (or code) signs the person in. An unknown address
 * gets an account and its signup confirmation, which signs in just the same; an unconfirmed one its confirmation
 * again. compat: when no account may be created, an unknown address is refused as GoTrue refuses it
 * (`otp_disabled`), which apps use to say "no account found": that answer tells that the address has none
 * (docs/compatibility.md).
 */
export async function sendMagicLink(deps: Deps, input: SendMagicLinkInput): Promise<void> {
  await limitPerClient(deps, "otp", input.context);
  const { signup, email, otp } = deps.policy;
  if (!signup.emailEnabled) throw new AuthError("email_provider_disabled", "Email logins are disabled");
  if (!email.magicLinkEnabled) throw new AuthError("email_provider_disabled", "Login with magic link is disabled");
  const address = normalizeEmail(input.email);
  // Whether or not the address has an account, so that the answer tells nothing.
  assertNewAccountMetadataFits({ provider: "email", address }, input.data);
  const pkce = readPkceChallenge(input.codeChallenge, input.codeChallengeMethod);
  const redirectTo = chooseRedirect(input.redirectTo ?? [], deps.policy.redirect);
  const existing = await deps.stores.users.findByEmail(address);
  if (!existing) assertMayCreate(deps, input.createUser);
  // Shared with /recover, as GoTrue's recovery_sent_at is: one sign-in mail a minute, however asked for.
  await limitFrequency(deps, { purpose: "sign_in_mail", address, seconds: otp.linkFrequencySeconds, channel: "email" });
  await assertEmailQuotaLeft(deps);

  let createdUser: User | undefined;
  await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const contact = { provider: "email", address } as const;
    if (!existing) {
      // The data rides on the confirmation until the address is proven (see sign-up.ts).
      const created = {
        ...newAccount(deps, { contact, passwordHash: null, audience: input.audience }),
        confirmationSentAt: now,
      };
      await beforeUserCreated(deps, stores, { user: created, context: input.context });
      await stores.users.insert(created);
      createdUser = created;
      await recordAudit(deps, stores, {
        action: "user_confirmation_requested",
        actor: created,
        context: input.context,
        traits: { provider: "email" },
      });
      const choices = { ...NO_CHOICES, userMetadata: input.data ?? null };
      await sendConfirmation(deps, stores, created, { contact, redirectTo, pkce, choices });
      return;
    }
    const user = (await stores.users.findById(existing.id, { forUpdate: true })) ?? existing;
    if (!isEmailConfirmed(user)) {
      await stores.users.update({ ...user, confirmationSentAt: now, updatedAt: now });
      await recordAudit(deps, stores, {
        action: "user_confirmation_requested",
        actor: user,
        context: input.context,
        traits: { provider: "email" },
      });
      const choices = await choicesOfSignInCode(stores, user, input.data);
      await sendConfirmation(deps, stores, user, { contact, redirectTo, pkce, choices });
      return;
    }
    await stores.users.update({ ...user, recoverySentAt: now, updatedAt: now });
    // GoTrue records a magic link as a recovery request: both sign in by mail.
    await recordAudit(deps, stores, { action: "user_recovery_requested", actor: user, context: input.context });
    await sendSignInMail(deps, stores, { user, kind: "magic_link", address, redirectTo, pkce });
  });
  // An address nobody had is an account now, waiting for its confirmation.
  if (createdUser !== undefined) {
    deps.events.record({ kind: "signed_up", provider: "email" });
    await afterUserCreated(deps, { user: createdUser, context: input.context });
  }
}

/** An unknown address or number signs up, if the request and the instance allow it; GoTrue's refusals else. */
export function assertMayCreate(deps: Deps, createUser: boolean): void {
  if (!createUser) throw new AuthError("otp_disabled", messages.otpSignupsDisabled);
  if (deps.policy.signup.disabled) throw new AuthError("signup_disabled", messages.signupsDisabled);
}
