import type { Deps, Principal } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { Factor, FactorType } from "../../model/factor.ts";
import { normalizePhone } from "../../model/phone.ts";
import type { Session } from "../../model/session.ts";
import type { User } from "../../model/user.ts";
import { isUuid } from "../../model/uuid.ts";
import type { Stores } from "../../ports/stores.ts";
import type { WebAuthnCeremony } from "../../ports/webauthn.ts";
import { queueNotification } from "../../services/delivery/notifications.ts";

/** The caller's session: factors are enrolled, challenged and verified for one. */
export function sessionOf(principal: Principal): Session {
  if (principal.session === null) throw new AuthError("session_not_found", "Session not found");
  return principal.session;
}

/** A factor id from a path: not a UUID is GoTrue's 404 `validation_failed`. */
export function assertFactorId(factorId: string): void {
  if (!isUuid(factorId))
    throw new AuthError("validation_failed", "factor_id must be an UUID", { case: "malformed_id" });
}

/** The user's factor, or GoTrue's 404 `mfa_factor_not_found` (also for another user's). */
export async function factorOf(stores: Stores, userId: string, factorId: string, forUpdate = false): Promise<Factor> {
  assertFactorId(factorId);
  const factor = await stores.factors.find(userId, factorId, { forUpdate });
  if (!factor) throw new AuthError("mfa_factor_not_found", "Factor not found");
  return factor;
}

/** A phone factor's number, E.164, in GoTrue's words when it is not one. */
export function factorPhone(phone: string): string {
  try {
    return normalizePhone(phone);
  } catch {
    throw new AuthError("validation_failed", "Invalid phone number format (E.164 required)");
  }
}

/** MFA_<TYPE>_VERIFY_ENABLED: challenges and verifications of a type switched off are refused, as GoTrue does. */
export function assertVerifyEnabled(deps: Deps, type: FactorType): void {
  if (deps.policy.mfa[type].verify) return;
  switch (type) {
    case "totp":
      throw new AuthError("mfa_totp_verify_not_enabled", "MFA verification is disabled for TOTP");
    case "phone":
      throw new AuthError("mfa_phone_verify_not_enabled", "MFA verification is disabled for Phone");
    case "webauthn":
      // compat: GoTrue answers a verification of a WebAuthn factor switched off with the enroll code; this is the
      // code its challenge answers (docs/compatibility.md, "Passkeys").
      throw new AuthError("mfa_webauthn_verify_not_enabled", "MFA verification is disabled for WebAuthn");
  }
}

/** The relying party, for a WebAuthn factor (there whenever MFA_WEB_AUTHN_* is on: the configuration sees to it). */
export function factorCeremony(deps: Deps): WebAuthnCeremony {
  if (deps.webauthn === null) {
    throw new AuthError("mfa_webauthn_verify_not_enabled", "MFA verification is disabled for WebAuthn");
  }
  return deps.webauthn;
}

/**
 * Mails the account that a factor was verified for the first time, or removed, when the operator switched that
 * notification on (MAILER_NOTIFICATIONS_MFA_FACTOR_*_ENABLED), in the caller's transaction. Only accounts with an
 * address get one.
 */
export async function notifyFactor(
  deps: Deps,
  stores: Stores,
  user: User,
  { kind, factor }: { kind: "mfa_factor_enrolled" | "mfa_factor_unenrolled"; factor: Factor },
): Promise<void> {
  if (user.email === null || !deps.policy.email.notifications[kind]) return;
  await queueNotification(deps, stores, { kind, to: user.email, factorType: factor.type }, user.id);
}
