import type { Deps } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { NO_CHOICES } from "../../model/one-time-token.ts";
import type { User } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { limitFrequency } from "../abuse/send-frequency.ts";
import { sendConfirmation } from "../delivery/confirmation.ts";
import { assertEmailQuotaLeft } from "../delivery/email-quota.ts";
import { queueNotification } from "../delivery/notifications.ts";

/**
 * Signed in, or a confirmation mail sent (committed) for an address the provider did not verify; `created`: the
 * account, when the sign-in created it.
 */
export type ProviderSignInOutcome =
  | { readonly kind: "signed_in"; readonly user: User; readonly created?: User }
  | { readonly kind: "needs_verification"; readonly provider: string; readonly created?: User };

/**
 * The answer to a sign-in whose address the provider did not verify, as GoTrue words it: whether a confirmation
 * mail went out or there was no address to send one to.
 */
export function needsVerification(
  provider: string,
  mailed: boolean,
  code: "provider_email_needs_verification" | "email_not_confirmed" = "provider_email_needs_verification",
): AuthError {
  return new AuthError(
    code,
    mailed
      ? `Unverified email with ${provider}. A confirmation email has been sent to your ${provider} email`
      : `Unverified email with ${provider}. Verify the email with ${provider} in order to sign in`,
  );
}

/**
 * Tells the account's address that a sign-in method joined or left it, when the operator switched that
 * notification on (MAILER_NOTIFICATIONS_IDENTITY_*_ENABLED), in the caller's transaction.
 */
export async function notifyIdentity(
  deps: Deps,
  stores: Stores,
  notice: {
    readonly kind: "identity_linked" | "identity_unlinked";
    /** The account's. */
    readonly userId: string;
    readonly to: string | null;
    readonly provider: string;
  },
): Promise<void> {
  const { kind, to, provider } = notice;
  if (to !== null && deps.policy.email.notifications[kind])
    await queueNotification(deps, stores, { kind, to, provider }, notice.userId);
}

/**
 * Mails the confirmation of an address a provider did not verify, in the caller's transaction: no more than one
 * per SMTP_MAX_FREQUENCY to the address (shared with /signup and /resend), and only while the email quota has
 * room, as GoTrue's sendConfirmation. Otherwise every callback with such an address would mail it again. The
 * confirmation carries the identity whose sign-in asked for it: if the account's address is first proven by
 * another token, that identity goes (apply-verification.ts).
 */
export async function mailAddressConfirmation(
  deps: Deps,
  stores: Stores,
  user: User,
  claim: { readonly address: string; readonly identityId: string; readonly redirectTo: string },
): Promise<void> {
  const { address, identityId, redirectTo } = claim;
  const seconds = deps.policy.otp.emailConfirmationFrequencySeconds;
  await limitFrequency(deps, { purpose: "confirmation", address, seconds, channel: "email" });
  await assertEmailQuotaLeft(deps);
  const choices = { ...NO_CHOICES, identityId };
  await sendConfirmation(deps, stores, user, { contact: { provider: "email", address }, redirectTo, choices });
}
