import type { Deps, Principal, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { isEmailConfirmed, isPhoneConfirmed } from "../../model/user.ts";
import { limitFrequency } from "../../services/abuse/send-frequency.ts";
import { recordAudit } from "../../services/audit.ts";
import { assertEmailQuotaLeft, queueEmail } from "../../services/delivery/email-quota.ts";
import { limitSmsCodes, sendSmsCode } from "../../services/delivery/sms-codes.ts";
import { issueToken } from "../../services/tokens/issue-token.ts";

/**
 * GET /reauthenticate: sends a one-time nonce to the user's email (or, without one, phone), which a password change
 * must then carry when SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION is on. Returns the SMS's message id.
 */
export async function reauthenticate(
  deps: Deps,
  input: { readonly principal: Principal; readonly context: RequestContext },
): Promise<{ messageId: string | null }> {
  const { user } = input.principal;
  if (user.email === null && user.phone === null) {
    throw new AuthError("validation_failed", "Reauthentication requires the user to have an email or a phone number");
  }
  const byEmail = user.email !== null;
  if (byEmail && !isEmailConfirmed(user)) throw new AuthError("email_not_confirmed", "Please verify your email first.");
  if (!byEmail && !isPhoneConfirmed(user))
    throw new AuthError("phone_not_confirmed", "Please verify your phone first.");
  const address = (byEmail ? user.email : user.phone)!;
  if (byEmail) {
    // The 900 s default is for signup confirmations and email changes (docs/compatibility.md, Configuration); a
    // nonce is asked for again when the first was mistyped, so it waits as long as a magic link does.
    const seconds = deps.policy.otp.linkFrequencySeconds;
    await limitFrequency(deps, { purpose: "reauthentication", address, seconds, channel: "email" });
    await assertEmailQuotaLeft(deps);
  } else {
    await limitSmsCodes(deps, address, "reauthentication");
  }

  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const current = (await stores.users.findById(user.id, { forUpdate: true })) ?? user;
    await stores.users.update({ ...current, reauthenticationSentAt: now, updatedAt: now });
    await recordAudit(deps, stores, {
      action: "user_reauthenticate_requested",
      actor: current,
      context: input.context,
    });
    if (!byEmail) {
      return {
        messageId: await sendSmsCode(deps, stores, {
          user: current,
          kind: "reauthentication",
          phone: address,
          sms: "reauthentication",
        }),
      };
    }
    const issued = await issueToken(deps, stores, {
      user: current,
      kind: "reauthentication",
      channel: "email",
      address,
      link: false,
    });
    const email = { kind: "reauthentication", to: address, otp: issued.otp } as const;
    await queueEmail(deps, stores, { email, userId: current.id, expiresAt: issued.expiresAt });
    return { messageId: null };
  });
}
